#include <doctest/doctest.h>

#include <random>
#include <string>
#include <string_view>

#include "base/text_util.h"

using namespace megatriage;

namespace {

// The escapes' grammar a byte at a time, as the specification the run-at-a-time code must meet.
std::string strip_reference(std::string_view s) {
  // A sequence ends at a line break at the latest, which is kept.
  auto ends = [&](std::size_t j) { return j >= s.size() || s[j] == '\n' || s[j] == '\r'; };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') {
      out += s[i];
      continue;
    }
    if (ends(i + 1)) continue;  // a lone ESC at the end of the text or its line
    const char kind = s[i + 1];
    std::size_t j = i + 2;
    if (kind == '[') {  // CSI ends at its final byte, 0x40-0x7e
      while (!ends(j) && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
      i = ends(j) ? j - 1 : j;
    } else if (kind == ']' || kind == 'P' || kind == '_' || kind == '^') {  // to BEL or ESC backslash
      while (!ends(j) && s[j] != '\x07' && !(s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\')) ++j;
      i = ends(j) ? j - 1 : s[j] == '\x1b' ? j + 1 : j;
    } else if (kind >= 0x20 && kind <= 0x2f) {  // intermediates, then a final byte 0x30-0x7e
      while (!ends(j) && s[j] >= 0x20 && s[j] <= 0x2f) ++j;
      i = (!ends(j) && s[j] >= 0x30 && s[j] <= 0x7e) ? j : j - 1;
    } else {
      i += 1;  // ESC and one byte
    }
  }
  return out;
}

}  // namespace

TEST_SUITE("text_util") {
TEST_CASE("text_util: terminal escapes are removed") {
  CHECK(strip_terminal_escapes("\x1b[1;31mTraceback\x1b[0m (most") == "Traceback (most");
  CHECK(strip_terminal_escapes("a\x1b]0;title\x07" "b") == "ab");
  CHECK(strip_terminal_escapes("a\x1b]8;;http://x\x1b\\link") == "alink");
  CHECK(strip_terminal_escapes("plain") == "plain");
  CHECK(strip_terminal_escapes("cut\x1b[") == "cut");
  CHECK(strip_terminal_escapes("cut\x1b") == "cut");
  CHECK(strip_terminal_escapes("a\x1b(B\x1b[mb") == "ab");  // tput sgr0: a charset, then SGR
  CHECK(strip_terminal_escapes("a\x1b=b") == "ab");            // ESC and one byte
  CHECK(strip_terminal_escapes("a\x1b(\x1b[1mb") == "ab");     // no final byte: the next ESC starts anew
  CHECK(strip_terminal_escapes("a\x1b]0;never ended") == "a");
  // A line break ends a sequence cut off before it, and stays.
  CHECK(strip_terminal_escapes("a\x1b[1\nb\x1b[0m") == "a\nb");
  CHECK(strip_terminal_escapes("a\x1b]0;title\r\nb") == "a\r\nb");
  CHECK(strip_terminal_escapes("a\x1b\nb") == "a\nb");
}

TEST_CASE("text_util: escapes removed into a reused buffer or in place, as the byte-wise grammar says") {
  // Random texts over the bytes that matter to the grammar: each kind of sequence, cut ones,
  // nested ESCs, line breaks, and runs of plain text between them.
  const char alphabet[] = {'\x1b', '[', ']', 'P', '_', '^', '\x07', '\\', 'm', '1', ';', 'a', ' ', '(', '#', 'B', '\x80', '\n', '\r'};
  std::mt19937 random(1204);
  std::string out = "stale text from the last line";
  for (int round = 0; round < 20000; ++round) {
    std::string s(random() % 24, ' ');
    for (char& c : s) c = alphabet[random() % sizeof alphabet];
    CAPTURE(s);
    strip_terminal_escapes(s, out);
    CHECK(out == strip_reference(s));
    CHECK(strip_terminal_escapes(s) == out);
    std::string in_place = s;
    in_place.resize(strip_terminal_escapes_in_place(in_place.data(), in_place.size()));
    CHECK(in_place == out);
  }
}

TEST_CASE("text_util: UTF-8 validation and repair") {
  CHECK(is_valid_utf8("ascii ✓ ok"));
  CHECK_FALSE(is_valid_utf8("bad \xff byte"));
  CHECK_FALSE(is_valid_utf8("overlong \xc0\xaf"));
  // Whatever the position against the 8-byte ASCII steps.
  for (std::size_t at = 0; at <= 24; ++at) {
    CAPTURE(at);
    const std::string ascii(24, 'a');
    CHECK_FALSE(is_valid_utf8(ascii.substr(0, at) + "\xff" + ascii.substr(at)));
    CHECK_FALSE(is_valid_utf8(ascii.substr(0, at) + "\xc3"));  // cut sequence at the end
    CHECK(is_valid_utf8(ascii.substr(0, at) + "\xc3\xa9" + ascii.substr(at)));
    CHECK(is_valid_utf8(ascii.substr(0, at) + "\xf0\x9f\x98\x80" + ascii.substr(at)));
  }
  CHECK_FALSE(is_valid_utf8("surrogate \xed\xa0\x80"));
  CHECK(repair_utf8("a\xffz") == "a\xef\xbf\xbdz");
  CHECK(repair_utf8("cut \xe2\x9c") == "cut \xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("text_util: printable neutralises controls for the terminal") {
  CHECK(printable("x\x1b[2Jy") == "xy");
  CHECK(printable("bell\x07") == "bell\\x07");
  CHECK(printable("c1 \xc2\x9b" "31m") == "c1 \\x9b31m");
  CHECK(printable("tab\tkept") == "tab\tkept");
}

TEST_CASE("text_util: short host names") {
  CHECK(short_host("node01.cluster.local") == "node01");
  CHECK(short_host("10.1.0.2") == "10.1.0.2");
  CHECK(short_host(" node2 ") == "node2");
}
}
