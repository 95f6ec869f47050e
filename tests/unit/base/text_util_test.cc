#include <doctest/doctest.h>

#include "base/text_util.h"

using namespace megatriage;

TEST_SUITE("text_util") {
TEST_CASE("text_util: terminal escapes are removed") {
  CHECK(strip_terminal_escapes("\x1b[1;31mTraceback\x1b[0m (most") == "Traceback (most");
  CHECK(strip_terminal_escapes("a\x1b]0;title\x07" "b") == "ab");
  CHECK(strip_terminal_escapes("a\x1b]8;;http://x\x1b\\link") == "alink");
  CHECK(strip_terminal_escapes("plain") == "plain");
  CHECK(strip_terminal_escapes("cut\x1b[") == "cut");
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
