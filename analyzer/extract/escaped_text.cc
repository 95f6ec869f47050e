#include "extract/escaped_text.h"

namespace megatriage {
namespace {

constexpr std::string_view kEscapedHeader = "Traceback (most recent call last):\\n";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The value of the `digits` hex digits at s[at], or -1.
long hex_number(std::string_view s, std::size_t at, int digits) {
  if (at + static_cast<std::size_t>(digits) > s.size()) return -1;
  long value = 0;
  for (int k = 0; k < digits; ++k) {
    const int d = hex_value(s[at + static_cast<std::size_t>(k)]);
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

// A code point as UTF-8 (a lone surrogate of a pair JSON splits: U+FFFD).
void append_utf8(std::string& out, long cp) {
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// Whether the byte at `at` is escaped: an odd number of backslashes right before it.
bool escaped(std::string_view s, std::size_t at) {
  std::size_t n = 0;
  while (at > n && s[at - n - 1] == '\\') ++n;
  return n % 2 == 1;
}

// The quote of the string that `line[at]` stands in, or 0. In a JSON record only `"` delimits
// strings, and apostrophes in them are text (loguru's `serialize`: `"text": "... function
// '<module>' ...\nTraceback ..."`): the record is read from its start. Elsewhere (a repr(), a
// message quoting one) the nearest quote before it that no backslash escapes opens it.
char enclosing_quote(std::string_view line, std::size_t at) {
  const std::size_t start = line.find_first_not_of(' ');
  if (start != std::string_view::npos && line[start] == '{') {
    bool in_string = false;
    for (std::size_t i = start; i < at; ++i) {
      if (in_string && line[i] == '\\') ++i;
      else if (line[i] == '"') in_string = !in_string;
    }
    return in_string ? '"' : 0;
  }
  for (std::size_t k = at; k-- > 0;)
    if ((line[k] == '"' || line[k] == '\'') && !escaped(line, k)) return line[k];
  return 0;
}

}  // namespace

std::string decode_escaped(std::string_view s, std::size_t from, char quote, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = from; i < s.size() && out.size() < max_bytes; ++i) {
    const char c = s[i];
    if (c == quote) break;
    if (c != '\\' || i + 1 >= s.size()) {
      out += c;
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
      case 'f':
        break;  // nothing a log line needs
      case '"':
      case '\'':
      case '\\':
      case '/':
        out += e;
        break;
      case 'u':
      case 'x': {
        const int digits = e == 'u' ? 4 : 2;
        const long cp = hex_number(s, i + 1, digits);
        if (cp < 0) {
          out += '\\';
          out += e;
          break;
        }
        append_utf8(out, cp);
        i += static_cast<std::size_t>(digits);
        break;
      }
      default:
        out += '\\';
        out += e;
    }
  }
  if (out.size() > max_bytes) out.resize(max_bytes);
  return out;
}

std::optional<std::string> json_record_text(std::string_view line, std::size_t max_bytes) {
  const std::size_t at = find_json_member(
      line, 4, [&](std::string_view key, std::size_t value) { return line[value] == '"' && key == "log"; });
  if (at == std::string_view::npos) return std::nullopt;
  std::string text = decode_escaped(line, at + 1, '"', max_bytes);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  return text;
}

std::string escaped_traceback(std::string_view line, std::size_t max_bytes) {
  // Most lines that get here (a traceback's anchors) hold no backslash: one memchr says so.
  if (line.find('\\') == std::string_view::npos) return {};
  const std::size_t header = line.find(kEscapedHeader);
  if (header == std::string_view::npos) return {};
  const char quote = enclosing_quote(line, header);
  return quote != 0 ? decode_escaped(line, header, quote, max_bytes) : std::string();
}

}  // namespace megatriage
