#include "base/text_util.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace megatriage {

namespace {

// Where the escape sequence starting at s[esc] (an ESC) ends: the index after it, at most
// s.size(). An unfinished sequence runs to the end.
std::size_t escape_end(std::string_view s, std::size_t esc) {
  if (esc + 1 >= s.size()) return s.size();
  const char kind = s[esc + 1];
  std::size_t j = esc + 2;
  if (kind == '[') {  // CSI: parameters and intermediates, then a final byte 0x40-0x7e
    while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
    return j < s.size() ? j + 1 : s.size();
  }
  if (kind == ']' || kind == 'P' || kind == '_' || kind == '^') {  // OSC/DCS/APC/PM: to BEL or ESC \.
    while (j < s.size() && s[j] != '\x07' && !(s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\')) ++j;
    if (j >= s.size()) return s.size();
    return s[j] == '\x1b' ? j + 2 : j + 1;
  }
  if (kind >= 0x20 && kind <= 0x2f) {  // intermediates, then a final byte: `ESC ( B` (tput sgr0)
    while (j < s.size() && s[j] >= 0x20 && s[j] <= 0x2f) ++j;
    return j < s.size() && s[j] >= 0x30 && s[j] <= 0x7e ? j + 1 : j;
  }
  return esc + 2;  // two-byte escape
}

}  // namespace

void strip_terminal_escapes(std::string_view s, std::string& out) {
  out.clear();
  // The text between escapes is copied a run at a time: a coloured line has a few escapes
  // among a hundred or more plain bytes.
  for (std::size_t i = 0; i < s.size();) {
    const void* esc = std::memchr(s.data() + i, '\x1b', s.size() - i);
    const std::size_t at = esc == nullptr ? s.size() : static_cast<std::size_t>(static_cast<const char*>(esc) - s.data());
    out.append(s.data() + i, at - i);
    if (at == s.size()) break;
    i = escape_end(s, at);
  }
}

std::string strip_terminal_escapes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  strip_terminal_escapes(s, out);
  return out;
}

namespace {
// Length of the valid UTF-8 sequence at s[i], or 0 if invalid.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned int cp;
  if ((c & 0xe0) == 0xc0) { n = 2; cp = c & 0x1f; }
  else if ((c & 0xf0) == 0xe0) { n = 3; cp = c & 0x0f; }
  else if ((c & 0xf8) == 0xf0) { n = 4; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3f);
  }
  // Reject overlong forms, surrogates and out-of-range code points.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
      (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
    return 0;
  return n;
}
}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    // Log text is nearly all ASCII: eight bytes at a time while no high bit is set.
    std::uint64_t word;
    if (i + 8 <= s.size() && (std::memcpy(&word, s.data() + i, 8), (word & 0x8080808080808080ULL) == 0)) {
      i += 8;
      continue;
    }
    std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string repair_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string printable(std::string_view s) {
  std::string clean = repair_utf8(strip_terminal_escapes(s));
  std::string out;
  out.reserve(clean.size());
  for (std::size_t i = 0; i < clean.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(clean[i]);
    // C1 controls arrive as UTF-8 `\xc2\x80`..`\xc2\x9f`; they can act as CSI on some terminals.
    if (c == 0xc2 && i + 1 < clean.size() && static_cast<unsigned char>(clean[i + 1]) < 0xa0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(clean[i + 1]));
      out += buf;
      ++i;
    } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string short_host(std::string_view host) {
  host = trim_spaces(host);
  bool ip = !host.empty();
  for (char c : host)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') ip = false;
  if (ip) return std::string(host);
  auto dot = host.find('.');
  return std::string(host.substr(0, dot));
}

}  // namespace megatriage
