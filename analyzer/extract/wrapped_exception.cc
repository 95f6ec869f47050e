#include "extract/wrapped_exception.h"

#include <cctype>

namespace megatriage {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// A dotted identifier at the start of `s`; its length, 0 when there is none.
std::size_t dotted_name(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (!(std::isalpha(static_cast<unsigned char>(s[i])) != 0 || s[i] == '_')) return 0;
    while (i < s.size() && is_word_char(s[i])) ++i;
    if (i + 1 < s.size() && s[i] == '.' && (std::isalpha(static_cast<unsigned char>(s[i + 1])) != 0 || s[i + 1] == '_')) {
      ++i;
      continue;
    }
    break;
  }
  return i;
}

bool names_exception(std::string_view name) {
  std::size_t dot = name.rfind('.');
  std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  if (last.empty() || std::isupper(static_cast<unsigned char>(last.front())) == 0) return false;
  for (std::string_view suffix : {"Error", "Exception", "Exit", "Interrupt", "Failure", "Fault"})
    if (ends_with(last, suffix)) return true;
  return false;
}

}  // namespace

bool is_exception_line(std::string_view line) {
  std::string_view s = trim_blanks(line);
  std::size_t n = dotted_name(s);
  if (n == 0 || !names_exception(s.substr(0, n))) return false;
  std::string_view rest = s.substr(n);
  if (!rest.empty() && rest.front() == '(') {  // RayTaskError(ImportError)
    std::size_t close = rest.find(')');
    if (close == std::string_view::npos || close < 2) return false;
    if (dotted_name(rest.substr(1)) != close - 1) return false;
    rest.remove_prefix(close + 1);
  }
  return rest.empty() || rest.front() == ':';
}

std::vector<std::string_view> embedded_exception_lines(std::string_view tail) {
  std::vector<std::string_view> out;
  while (!tail.empty()) {
    std::size_t nl = tail.find('\n');
    std::string_view line = tail.substr(0, nl);
    if (is_exception_line(line)) out.push_back(trim_blanks(line));
    if (nl == std::string_view::npos) break;
    tail.remove_prefix(nl + 1);
  }
  return out;
}

bool announces_traceback(const ExceptionBlock& b) {
  // A wrapper that names the inner type (`RayTaskError(ImportError): ...`) carries its traceback.
  std::string_view line = trim_blanks(b.exception);
  std::size_t name = dotted_name(line);
  if (name > 0 && name < line.size() && line[name] == '(' && is_exception_line(line)) return true;
  std::string_view tail = trim_blanks(b.message_tail);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.remove_suffix(1);
  std::string_view last;
  if (!tail.empty()) {
    std::size_t nl = tail.rfind('\n');
    last = trim_blanks(nl == std::string_view::npos ? tail : tail.substr(nl + 1));
  } else {
    last = trim_blanks(b.exception);
  }
  return !last.empty() && last.back() == ':';
}

}  // namespace megatriage
