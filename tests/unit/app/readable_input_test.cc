// Unit tests for app/readable_input.h: only binary, empty or unopened files are "nothing
// readable", and the message says what was there instead.
#include "app/readable_input.h"

#include <doctest/doctest.h>

using namespace megatriage;

namespace {

FileResult file(const std::string& path, std::uint64_t bytes, bool binary = false, bool unopened = false) {
  FileResult r;
  r.file.display_path = path;
  r.bytes = bytes;
  r.binary = binary;
  r.unopened = unopened;
  return r;
}

}  // namespace

TEST_SUITE("readable_input") {
TEST_CASE("readable_input: text is a file that opened, is not binary and not empty") {
  CHECK(has_text(file("logs/a.err", 10)));
  CHECK_FALSE(has_text(file("logs/core.1", 4096, true)));
  CHECK_FALSE(has_text(file("logs/b.out", 0)));
  CHECK_FALSE(has_text(file("logs/c.err", 0, false, true)));
}

TEST_CASE("readable_input: the message counts each kind and names its first file") {
  CHECK(nothing_readable_message({}) == "no readable log files under the given path(s)");
  CHECK(nothing_readable_message({file("logs/core.1", 9, true), file("logs/a.err", 0), file("logs/b.err", 0)}) ==
        "no readable log files under the given path(s): 1 binary file (logs/core.1); "
        "2 empty files (logs/a.err, ...)");
  CHECK(nothing_readable_message({file("logs/x", 0, false, true)}) ==
        "no readable log files under the given path(s): 1 unreadable file (logs/x)");
  // One of megatriage's own reports is read as nothing (bytes 0) and named as what it is.
  FileResult report = file("logs/megatriage-25.json", 0);
  report.own_report = true;
  CHECK_FALSE(has_text(report));
  CHECK(nothing_readable_message({report}) ==
        "no readable log files under the given path(s): 1 megatriage report (logs/megatriage-25.json)");
}
}
