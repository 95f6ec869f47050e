// clock_skew: a file whose stamps lie an hour or more from every other file's is flagged; files
// that overlap or sit close are not.
#include <doctest/doctest.h>

#include <vector>

#include "decide/clock_skew.h"

using namespace megatriage;

namespace {

constexpr std::int64_t kMinuteUs = 60LL * 1000000;

FileResult span(std::int64_t first_min, std::int64_t last_min) {
  FileResult r;
  r.first_stamp_us = first_min * kMinuteUs;
  r.last_stamp_us = last_min * kMinuteUs;
  return r;
}

bool flagged(const FileResult& r) {
  for (const auto& d : r.diagnostics)
    if (d.code == "timeline.clock-skew") return true;
  return false;
}

}  // namespace

TEST_SUITE("clock_skew") {
TEST_CASE("clock_skew: only the file hours away from all others is flagged") {
  std::vector<FileResult> files{span(0, 10), span(5, 20), span(400, 410), FileResult{}};
  report_clock_skew(files);
  CHECK_FALSE(flagged(files[0]));
  CHECK_FALSE(flagged(files[1]));
  REQUIRE(flagged(files[2]));
  CHECK(files[2].diagnostics[0].severity == Severity::Warning);
  CHECK(files[2].diagnostics[0].message.find("at least 6.3 h") != std::string::npos);
  CHECK_FALSE(flagged(files[3]));  // no stamps: nothing to compare
}

TEST_CASE("clock_skew: a gap under an hour, or a clock that stepped back, is not skew") {
  std::vector<FileResult> close{span(0, 10), span(69, 80)};
  report_clock_skew(close);
  CHECK_FALSE(flagged(close[0]));
  CHECK_FALSE(flagged(close[1]));
  std::vector<FileResult> stepped{span(30, 0), span(10, 20)};  // last stamp before the first
  report_clock_skew(stepped);
  CHECK_FALSE(flagged(stepped[0]));
  CHECK_FALSE(flagged(stepped[1]));
}

TEST_CASE("clock_skew: one stamped file has no neighbour to differ from") {
  std::vector<FileResult> one{span(0, 10)};
  report_clock_skew(one);
  CHECK(one[0].diagnostics.empty());
}

TEST_CASE("clock_skew: two far-apart files are each flagged") {
  std::vector<FileResult> two{span(0, 10), span(200, 210)};
  report_clock_skew(two);
  CHECK(flagged(two[0]));
  CHECK(flagged(two[1]));
}
}
