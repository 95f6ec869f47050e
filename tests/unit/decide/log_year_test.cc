// log_year: year-less stamps take the file's printed year, else the job's most common one, else
// the file's modification time (said in a diagnostic).
#include <doctest/doctest.h>

#include <vector>

#include "decide/log_year.h"
#include "extract/timestamp.h"

using namespace megatriage;

namespace {

constexpr std::int64_t kDayUs = 86400000000LL;

// A file with one event stamped 29 Nov 15:00:00 without a year.
FileResult yearless_file(std::int64_t mtime_us) {
  FileResult r;
  r.file.display_path = "logs/x.err";
  r.file.mtime_us = mtime_us;
  Event e;
  e.civil = CivilTime{0, 11, 29, 15, 0, 0, 0};
  e.time.source = TimeSource::Explicit;
  r.events.push_back(e);
  return r;
}

FileResult printed_year(int year) {
  FileResult r;
  r.first_full_year = year;
  return r;
}

}  // namespace

TEST_SUITE("log_year") {
TEST_CASE("log_year: civil year from days since the epoch, around leap days and the epoch") {
  CHECK(civil_year_from_days(0) == 1970);
  CHECK(civil_year_from_days(-1) == 1969);
  CHECK(civil_year_from_days(364) == 1970);
  CHECK(civil_year_from_days(365) == 1971);
  CHECK(civil_year_from_days(11016) == 2000);  // 2000-02-29
  CHECK(civil_year_from_days(11322) == 2000);  // 2000-12-31 (a leap year: day 366)
  CHECK(civil_year_from_days(11323) == 2001);
  CHECK(civil_year_from_days(20775) == 2026);
}

TEST_CASE("log_year: the job's year is the most common printed year, ties to the earlier") {
  CHECK_FALSE(job_year({}));
  CHECK_FALSE(job_year({printed_year(0), printed_year(0)}));
  CHECK(job_year({printed_year(2025), printed_year(2026), printed_year(2026)}) == 2026);
  CHECK(job_year({printed_year(2026), printed_year(2025)}) == 2025);
}

TEST_CASE("log_year: a year-less file takes the job's year, silently") {
  FileResult r = yearless_file(0);
  resolve_year(r, 2024);
  CHECK(r.diagnostics.empty());
  CHECK(r.events[0].time.us == *civil_to_us(CivilTime{2024, 11, 29, 15, 0, 0, 0}));
  CHECK(r.events[0].time.year_inferred);
}

TEST_CASE("log_year: without a job year the mtime decides, and a diagnostic says so") {
  FileResult r = yearless_file(20775 * kDayUs);
  resolve_year(r, std::nullopt);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].code == "timeline.year-from-mtime");
  CHECK(r.diagnostics[0].message.find("2026") != std::string::npos);
  CHECK(r.events[0].time.us == *civil_to_us(CivilTime{2026, 11, 29, 15, 0, 0, 0}));
}

TEST_CASE("log_year: a file that printed its year, or has no stamps, is left alone") {
  FileResult own = yearless_file(0);
  own.first_full_year = 2020;
  resolve_year(own, std::nullopt);
  CHECK(own.diagnostics.empty());
  CHECK(own.events[0].time.us == 0);
  FileResult none;
  none.events.emplace_back();
  resolve_year(none, std::nullopt);
  CHECK(none.diagnostics.empty());
}
}
