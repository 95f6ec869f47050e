// UnmatchedLines: copies of a line that differ only in their time of day are one line; any
// other difference makes another line.
#include "match/unmatched_lines.h"

#include <doctest/doctest.h>

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
