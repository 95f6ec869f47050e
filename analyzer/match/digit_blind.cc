#include "match/digit_blind.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace megatriage {
namespace {

constexpr std::uint16_t kNoDigit = 0;
constexpr std::uint16_t kAllDigits = 0x3ff;  // bit d: the digit d

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ascii_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The digits an escape `\e` outside a class matches (kAllDigits or kNoDigit), or nullopt for
// escapes this reader does not vouch for (hex, octal, Unicode classes...).
std::optional<std::uint16_t> escape_digits(char e) {
  switch (e) {
    case 'd': case 'w': case 'S': return kAllDigits;
    case 'D': case 'W': case 's': return kNoDigit;
    case 'b': case 'B': case 'A': case 'z':  // assertions: digits are word characters alike
    case 'n': case 't': case 'r': case 'f': case 'v': case 'a': return kNoDigit;
    default: break;
  }
  // `\.`, `\[`, `\/`...: the punctuation itself.
  if (static_cast<unsigned char>(e) < 0x80 && !is_ascii_alnum(e) && e != '\0') return kNoDigit;
  return std::nullopt;
}

// The digits a POSIX class name (`digit`, `^alpha`) matches, or nullopt when unknown.
std::optional<std::uint16_t> posix_digits(std::string_view name) {
  bool negated = !name.empty() && name.front() == '^';
  if (negated) name.remove_prefix(1);
  std::uint16_t set;
  if (name == "digit" || name == "alnum" || name == "xdigit" || name == "word" || name == "print" ||
      name == "graph")
    set = kAllDigits;
  else if (name == "alpha" || name == "upper" || name == "lower" || name == "space" || name == "blank" ||
           name == "punct" || name == "cntrl")
    set = kNoDigit;
  else
    return std::nullopt;
  return negated ? static_cast<std::uint16_t>(kAllDigits & ~set) : set;
}

// Reads the class opening at regex[i] (`[`); moves i past its `]`. The digits it lists (its
// negation keeps "all" and "none" as they are), or nullopt when it cannot be read.
std::optional<std::uint16_t> class_digits(std::string_view regex, std::size_t& i) {
  std::size_t j = i + 1;
  if (j < regex.size() && regex[j] == '^') ++j;
  std::uint16_t digits = 0;
  bool first = true;  // a `]` right after `[` or `[^` is the character itself
  while (j < regex.size() && (regex[j] != ']' || first)) {
    first = false;
    if (regex.substr(j, 2) == "[:") {
      const std::size_t close = regex.find(":]", j + 2);
      if (close == std::string_view::npos) return std::nullopt;
      std::optional<std::uint16_t> set = posix_digits(regex.substr(j + 2, close - j - 2));
      if (!set) return std::nullopt;
      digits |= *set;
      j = close + 2;
      continue;
    }
    // One member: a character (possibly escaped punctuation), or an escape standing for a set.
    char low;
    if (regex[j] == '\\') {
      if (j + 1 >= regex.size()) return std::nullopt;
      const char e = regex[j + 1];
      if (e == 'd' || e == 'w' || e == 'S' || e == 'D' || e == 'W' || e == 's') {
        digits |= (e == 'd' || e == 'w' || e == 'S') ? kAllDigits : kNoDigit;
        j += 2;
        continue;
      }
      if (e == 'n' || e == 't' || e == 'r' || e == 'f' || e == 'v') {
        j += 2;
        continue;
      }
      if (static_cast<unsigned char>(e) >= 0x80 || is_ascii_alnum(e)) return std::nullopt;
      low = e;
      j += 2;
    } else {
      low = regex[j];
      ++j;
    }
    char high = low;
    if (j + 1 < regex.size() && regex[j] == '-' && regex[j + 1] != ']') {
      high = regex[j + 1];
      if (high == '\\') return std::nullopt;  // an escaped range end: not read here
      j += 2;
    }
    // As bytes: a Latin-1 end (`[5-\xe9]` written as the byte) is above every digit.
    const auto lo = static_cast<unsigned char>(low), hi = static_cast<unsigned char>(high);
    for (unsigned char d = '0'; d <= '9'; ++d)
      if (lo <= d && d <= hi) digits |= static_cast<std::uint16_t>(1U << (d - '0'));
  }
  if (j >= regex.size()) return std::nullopt;  // no closing `]`
  i = j + 1;
  return digits;
}

// The length of a repetition `{n}`, `{n,}` or `{n,m}` at regex[i], 0 when `{` is none (RE2 then
// reads the `{` as itself).
std::size_t repetition_length(std::string_view regex, std::size_t i) {
  std::size_t j = i + 1;
  std::size_t digits = 0;
  while (j < regex.size() && is_digit(regex[j])) ++j, ++digits;
  if (digits == 0) return 0;
  if (j < regex.size() && regex[j] == ',') {
    ++j;
    while (j < regex.size() && is_digit(regex[j])) ++j;
  }
  return j < regex.size() && regex[j] == '}' ? j + 1 - i : 0;
}

bool is_word_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

// Whether the run of literal digits at regex[begin, end) touches a letter the regex always
// matches right there: a plain letter just before it (it is followed by the run, so nothing
// makes it optional), or just after it when no quantifier lets that letter go missing.
bool run_in_word(std::string_view regex, std::size_t begin, std::size_t end) {
  if (begin > 0 && is_word_letter(regex[begin - 1]) && (begin < 2 || regex[begin - 2] != '\\')) return true;
  if (end < regex.size() && is_word_letter(regex[end])) {
    const char after = end + 1 < regex.size() ? regex[end + 1] : '\0';
    const bool optional = after == '?' || after == '*' ||
                          (after == '{' && end + 2 < regex.size() && regex[end + 2] == '0');
    return !optional;
  }
  return false;
}

// digit_blind(), or number_blind() when `words` is set.
bool blind(std::string_view regex, bool words) {
  std::size_t i = 0;
  while (i < regex.size()) {
    const char c = regex[i];
    if (c == '\\') {
      if (i + 1 >= regex.size()) return false;
      const char e = regex[i + 1];
      if (e == 'Q') {
        // Quoted text up to `\E` (or the end): literal, so no digit may be in it.
        const std::size_t end = regex.find("\\E", i + 2);
        const std::string_view quoted = regex.substr(i + 2, end == std::string_view::npos ? end : end - i - 2);
        for (char q : quoted)
          if (is_digit(q)) return false;
        i = end == std::string_view::npos ? regex.size() : end + 2;
        continue;
      }
      if (!escape_digits(e)) return false;
      i += 2;
      continue;
    }
    if (c == '[') {
      std::optional<std::uint16_t> digits = class_digits(regex, i);
      if (!digits || (*digits != kNoDigit && *digits != kAllDigits)) return false;
      continue;
    }
    if (c == '{') {
      if (std::size_t n = repetition_length(regex, i); n > 0) {
        i += n;
        continue;
      }
    }
    if (c == '(' && (regex.substr(i, 4) == "(?P<" || regex.substr(i, 3) == "(?<")) {
      // A group's name may hold digits; it matches nothing.
      const std::size_t close = regex.find('>', i);
      if (close == std::string_view::npos) return false;
      i = close + 1;
      continue;
    }
    if (is_digit(c)) {
      std::size_t end = i;
      while (end < regex.size() && is_digit(regex[end])) ++end;
      if (!words || !run_in_word(regex, i, end)) return false;
      i = end;
      continue;
    }
    ++i;
  }
  return true;
}

}  // namespace

bool digit_blind(std::string_view regex) { return blind(regex, false); }

bool number_blind(std::string_view regex) { return blind(regex, true); }

void mask_digits(std::string_view text, std::string& out) {
  out.resize(text.size());
  // A select, not a branch: the loop vectorizes.
  std::transform(text.begin(), text.end(), out.begin(),
                 [](char ch) { return static_cast<unsigned char>(ch - '0') < 10 ? '0' : ch; });
}

void mask_numbers(std::string_view text, std::string& out) {
  out.assign(text);
  for (std::size_t i = 0; i < out.size();) {
    if (!is_digit(out[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < out.size() && is_digit(out[end])) ++end;
    const bool in_word = (i > 0 && is_word_letter(out[i - 1])) ||
                         (end < out.size() && is_word_letter(out[end]));
    if (!in_word)
      for (std::size_t k = i; k < end; ++k) out[k] = '0';
    i = end;
  }
}

}  // namespace megatriage
