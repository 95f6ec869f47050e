#include "base/json_cursor.h"

#include <charconv>
#include <stdexcept>

namespace megatriage {

void JsonCursor::space() {
  while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t'))
    ++at_;
}

char JsonCursor::peek() {
  space();
  return at_ < text_.size() ? text_[at_] : '\0';
}

bool JsonCursor::take(char c) {
  if (peek() != c) return false;
  ++at_;
  return true;
}

void JsonCursor::expect(char c) {
  if (!take(c)) {
    const char what[] = {'e', 'x', 'p', 'e', 'c', 't', 'e', 'd', ' ', '\'', c, '\'', '\0'};
    fail(what);
  }
}

void JsonCursor::fail(const char* what) const {
  throw std::runtime_error(std::string("JSON: ") + what + " at byte " + std::to_string(at_));
}

bool JsonCursor::at_end() {
  space();
  return at_ == text_.size();
}

namespace {

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

}  // namespace

std::string JsonCursor::string() {
  expect('"');
  std::string out;
  for (;;) {
    // Copy the run up to the next quote or backslash at once: most strings have no escape.
    std::size_t end = at_;
    while (end < text_.size() && text_[end] != '"' && text_[end] != '\\') ++end;
    out.append(text_.data() + at_, end - at_);
    at_ = end;
    if (at_ >= text_.size()) fail("unterminated string");
    if (text_[at_++] == '"') return out;
    if (at_ >= text_.size()) fail("unterminated escape");
    const char e = text_[at_++];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        auto hex4 = [&]() -> std::uint32_t {
          if (at_ + 4 > text_.size()) fail("short \\u escape");
          std::uint32_t v = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = text_[at_++];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= static_cast<std::uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f') v |= static_cast<std::uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') v |= static_cast<std::uint32_t>(h - 'A' + 10);
            else fail("bad \\u escape");
          }
          return v;
        };
        std::uint32_t cp = hex4();
        if (cp >= 0xd800 && cp < 0xdc00 && at_ + 6 <= text_.size() && text_[at_] == '\\' && text_[at_ + 1] == 'u') {
          at_ += 2;
          const std::uint32_t low = hex4();
          if (low < 0xdc00 || low > 0xdfff) fail("bad surrogate pair");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        append_utf8(out, cp);
        break;
      }
      default: fail("bad escape");
    }
  }
}

std::string_view JsonCursor::number() {
  space();
  const std::size_t start = at_;
  while (at_ < text_.size() && (text_[at_] == '-' || text_[at_] == '+' || text_[at_] == '.' || text_[at_] == 'e' ||
                                text_[at_] == 'E' || (text_[at_] >= '0' && text_[at_] <= '9')))
    ++at_;
  if (at_ == start) fail("expected a number");
  return text_.substr(start, at_ - start);
}

std::int64_t JsonCursor::int64() {
  const std::string_view n = number();
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
  if (ec != std::errc() || end != n.data() + n.size()) fail("expected an integer");
  return v;
}

std::uint64_t JsonCursor::uint64() {
  const std::string_view n = number();
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
  if (ec != std::errc() || end != n.data() + n.size()) fail("expected an unsigned integer");
  return v;
}

int JsonCursor::int32() {
  const std::int64_t v = int64();
  if (v < INT32_MIN || v > INT32_MAX) fail("integer out of range");
  return static_cast<int>(v);
}

bool JsonCursor::boolean() {
  space();
  if (text_.substr(at_, 4) == "true") {
    at_ += 4;
    return true;
  }
  if (text_.substr(at_, 5) == "false") {
    at_ += 5;
    return false;
  }
  fail("expected true or false");
}

void JsonCursor::skip() {
  switch (peek()) {
    case '{': object([&](std::string_view) { skip(); }); return;
    case '[': array([&] { skip(); }); return;
    case '"': string(); return;
    case 't': case 'f': boolean(); return;
    case 'n':
      if (text_.substr(at_, 4) != "null") fail("bad value");
      at_ += 4;
      return;
    default: number(); return;
  }
}

}  // namespace megatriage
