#include "base/text_util.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace megatriage {

std::size_t terminal_escape_end(std::string_view s, std::size_t esc) {
  // A sequence ends at a line break at the latest (as if the text ended there): in a buffer of
  // many lines, one cut off at the end of its line must not swallow the next.
  auto ends = [&](std::size_t j) { return j >= s.size() || s[j] == '\n' || s[j] == '\r'; };
  if (ends(esc + 1)) return esc + 1;
  const char kind = s[esc + 1];
  std::size_t j = esc + 2;
  if (kind == '[') {  // CSI: parameters and intermediates, then a final byte 0x40-0x7e
    while (!ends(j) && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
    return ends(j) ? j : j + 1;
  }
  if (kind == ']' || kind == 'P' || kind == '_' || kind == '^') {  // OSC/DCS/APC/PM: to BEL or ESC \.
    while (!ends(j) && s[j] != '\x07' && !(s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\')) ++j;
    if (ends(j)) return j;
    return s[j] == '\x1b' ? j + 2 : j + 1;
  }
  if (kind >= 0x20 && kind <= 0x2f) {  // intermediates, then a final byte: `ESC ( B` (tput sgr0)
    while (!ends(j) && s[j] >= 0x20 && s[j] <= 0x2f) ++j;
    return !ends(j) && s[j] >= 0x30 && s[j] <= 0x7e ? j + 1 : j;
  }
  return esc + 2;  // two-byte escape
}

std::size_t strip_terminal_escapes_in_place(char* text, std::size_t size) {
  // The text between escapes is moved a run at a time: a coloured line has a few escapes among
  // a hundred or more plain bytes.
  const std::string_view s(text, size);
  const void* first = std::memchr(text, '\x1b', size);
  if (first == nullptr) return size;
  auto out = static_cast<std::size_t>(static_cast<const char*>(first) - text);
  for (std::size_t i = out; i < size;) {  // s[i] is an ESC
    i = terminal_escape_end(s, i);
    const void* esc = std::memchr(text + i, '\x1b', size - i);
    const std::size_t at = esc == nullptr ? size : static_cast<std::size_t>(static_cast<const char*>(esc) - text);
    std::memmove(text + out, text + i, at - i);
    out += at - i;
    i = at;
  }
  return out;
}

void strip_terminal_escapes(std::string_view s, std::string& out) {
  out.assign(s.data(), s.size());
  out.resize(strip_terminal_escapes_in_place(out.data(), out.size()));
}

std::string strip_terminal_escapes(std::string_view s) {
  std::string out;
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
