// UnmatchedLines: copies of a line that differ only in their time of day are one line; any
// other difference makes another line.
#include "match/unmatched_lines.h"

#include <doctest/doctest.h>

#include <string>

using namespace megatriage;

TEST_CASE("lines that differ only in their stamp are seen once") {
  UnmatchedLines lines;
  const std::string a = "[W1129 10:00:00.015838 ProcessGroupNCCL.cpp:4718] Warning: deprecated";
  CHECK_FALSE(lines.seen(a, 7));
  lines.remember();
  CHECK(lines.seen("[W1129 10:00:02.1 ProcessGroupNCCL.cpp:4718] Warning: deprecated", 7));
  CHECK(lines.seen("[W1129 23:59:59 ProcessGroupNCCL.cpp:4718] Warning: deprecated", 7));
  CHECK_FALSE(lines.seen("[W1129 10:00:00.015838 ProcessGroupNCCL.cpp:4718] Warning: deprecatee", 7));
  CHECK_FALSE(lines.seen("[E1129 10:00:00.015838 ProcessGroupNCCL.cpp:4718] Warning: deprecated", 7));
  CHECK_FALSE(lines.seen("[W1130 10:00:00.015838 ProcessGroupNCCL.cpp:4718] Warning: deprecated", 7));
  // Only a few words of a line are hashed: a difference elsewhere is still another line.
  CHECK_FALSE(lines.seen("[W1129 10:00:00.015838 ProcessGroupNCCL.cpp:4719] Warning: deprecated", 7));
  // A comma fraction (Python logging) is part of the stamp too; a stamp at the end of the text.
  CHECK_FALSE(lines.seen("2026-11-29 10:00:00,123 - INFO - x", 11));
  lines.remember();
  CHECK(lines.seen("2026-11-29 11:30:00,999 - INFO - x", 11));
  CHECK_FALSE(lines.seen("at 10:00:00", 3));
  lines.remember();
  CHECK(lines.seen("at 12:00:00", 3));
  CHECK(lines.seen("at 12:00:00.5", 3));
}

TEST_CASE("only lines remembered are seen") {
  UnmatchedLines lines;
  CHECK_FALSE(lines.seen("x 10:00:00 y", 2));
  CHECK_FALSE(lines.seen("x 10:00:00 y", 2));  // looked up, never remembered
}

TEST_CASE("many lines of one kind: never a line that was not kept, the first ones found") {
  // Lines that differ in one digit somewhere in a long text: some share a hash, and the table
  // keeps a few of those, so a lookup never walks a long run of them.
  UnmatchedLines lines;
  auto line = [&](std::size_t i, std::size_t at) {
    std::string t(120, static_cast<char>('a' + at % 26));  // each round a kind of its own
    t[at] = static_cast<char>('0' + i % 10);
    t[at + 1] = static_cast<char>('0' + i / 10 % 10);
    return "[I1129 10:00:00.1 X.cpp:1] " + t;
  };
  for (std::size_t at : {0, 30, 60, 100}) {
    for (std::size_t i = 0; i < 60; ++i) {
      const std::string text = line(i, at);  // remember() keeps the text seen() looked up
      CHECK_FALSE(lines.seen(text, 7));
      lines.remember();
    }
    CHECK(lines.seen(line(0, at), 7));
    CHECK(lines.seen(line(1, at), 7));
    for (std::size_t i = 60; i < 100; ++i) CHECK_FALSE(lines.seen(line(i, at), 7));
  }
  // Kept lines found again after the table is cleared: none.
  lines.clear();
  CHECK_FALSE(lines.seen(line(0, 0), 7));
}

TEST_CASE("a table that grows keeps every line up to its limit") {
  // The table starts small and doubles as lines come: every line kept before a doubling is
  // found after it, and the line past the limit is not kept.
  UnmatchedLines lines;
  auto line = [](std::size_t i) { return "[W1129 10:00:00.1 X.cpp:1] warning number " + std::to_string(i) + " of many"; };
  for (std::size_t i = 0; i < 1025; ++i) {
    const std::string text = line(i);
    CHECK_FALSE(lines.seen(text, 7));
    lines.remember();
  }
  std::size_t found = 0;
  for (std::size_t i = 0; i < 1024; ++i) found += lines.seen(line(i), 7);
  CHECK(found == 1024);
  CHECK_FALSE(lines.seen(line(1024), 7));
}

TEST_CASE("the memo stops looking once it finds fewer than two lines in three") {
  // Every `new_every`-th line is new (a duration in it); the others are one warning.
  auto run = [](std::size_t new_every) {
    UnmatchedLines lines;
    const std::string warning = "[W1129 10:00:00.1 X.cpp:1] Warning: deprecated";
    for (std::size_t i = 0; i < 5000; ++i) {
      const std::string text = i % new_every == 0 ? "[I1129 10:00:00.1 X.cpp:2] took " + std::to_string(i) + " ms" : warning;
      if (!lines.seen(text, 7)) lines.remember();
    }
    return lines.seen(warning, 7);
  };
  CHECK(run(4));       // three in four found: still looking
  CHECK_FALSE(run(2));  // one in two: given up, every line is "not seen"
}
