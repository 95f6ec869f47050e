#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "render/text_wrap.h"

using namespace megatriage;

namespace {
std::vector<std::string> wrap(const std::string& text, std::size_t first, std::size_t rest) {
  std::vector<std::string> out;
  for (std::string_view v : wrap_at_spaces(text, first, rest)) out.emplace_back(v);
  return out;
}
}  // namespace

TEST_SUITE("text_wrap") {
TEST_CASE("text_wrap: breaks at the last space that fits, dropping the spaces at the break") {
  CHECK(wrap("aaa bbb ccc", 7, 7) == std::vector<std::string>{"aaa bbb", "ccc"});
  CHECK(wrap("aaa bbb   ccc", 8, 8) == std::vector<std::string>{"aaa bbb", "ccc"});
  CHECK(wrap("aaa bbb ccc", 11, 11) == std::vector<std::string>{"aaa bbb ccc"});
  // The first line has its own room (a longer indent after it).
  CHECK(wrap("aa bb cc dd", 5, 2) == std::vector<std::string>{"aa bb", "cc", "dd"});
}

TEST_CASE("text_wrap: a file:line, a path or a URL longer than the room stays whole on its own line") {
  const std::string path = "/lustre/proj/megatron/megatron/training/global_vars.py:262";
  CHECK(wrap("at " + path + " rank 1", 20, 20) == std::vector<std::string>{"at", path, "rank 1"});
  const std::string url = "https://github.com/NVIDIA/Megatron-LM/issues/1234#issuecomment-5678";
  CHECK(wrap(url, 10, 10) == std::vector<std::string>{url});
  // Never cut inside a word, even with no space at all.
  CHECK(wrap(std::string(30, 'x'), 10, 10) == std::vector<std::string>{std::string(30, 'x')});
}

TEST_CASE("text_wrap: spaces inside a line and leading spaces are kept; empty text is one empty line") {
  CHECK(wrap("at x:1  rank 3", 40, 40) == std::vector<std::string>{"at x:1  rank 3"});
  CHECK(wrap("  tied: 2 others", 40, 40) == std::vector<std::string>{"  tied: 2 others"});
  CHECK(wrap("", 10, 10) == std::vector<std::string>{""});
  CHECK(wrap("word ", 10, 10) == std::vector<std::string>{"word"});
}

TEST_CASE("text_wrap: columns count characters, not bytes") {
  CHECK(display_columns("a\u2014b") == 3);
  CHECK(display_columns("caf\xc3\xa9") == 4);
  // Three em dashes and spaces fit 5 columns though they take 11 bytes.
  CHECK(wrap("\u2014 \u2014 \u2014", 5, 5) == std::vector<std::string>{"\u2014 \u2014 \u2014"});
}

TEST_CASE("text_wrap: ASCII glyphs for a locale that is not UTF-8") {
  CHECK(ascii_glyphs("FAILURE \u2014 OOM") == "FAILURE - OOM");
  CHECK(ascii_glyphs("a \u2192 b \u2026 3\u00d7") == "a -> b ... 3x");
  CHECK(ascii_glyphs("\u2502 \u2500\u2500") == "| --");
  // Other text (a log's own UTF-8) is kept as it is.
  CHECK(ascii_glyphs("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(ascii_glyphs("plain") == "plain");
}
}
