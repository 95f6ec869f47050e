// child_failure_table: torchelastic's ChildFailedError table, row by row, into entries.
#include "extract/child_failure_table.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "extract/timestamp.h"

namespace megatriage {
namespace {

// Feeds `rows` (line numbers from 1, offsets 100 per line, a stamp parsed from each row) and
// describes every completed entry.
std::vector<std::string> read_table(const std::vector<std::string>& rows) {
  ChildFailureTable table;
  std::vector<std::string> entries;
  std::uint64_t line = 0;
  for (const std::string& row : rows) {
    ++line;
    if (!table.feed(row, line, line * 100, parse_timestamp(row))) continue;
    const ChildFailureEntry& e = table.entry();
    std::string s = "rank " + std::to_string(e.child.rank) + " local " + std::to_string(e.child.local_rank) +
                    " exit " + std::to_string(e.child.exitcode) + " pid " + std::to_string(e.child.pid) +
                    " host " + e.child.host + " table " + std::to_string(e.child.table_index) +
                    (e.child.root_cause_section ? " root" : "") + " from " + std::to_string(e.first_line) +
                    "@" + std::to_string(e.first_offset);
    if (e.stamp) s += " at " + to_debug_string(*e.stamp);
    entries.push_back(s);
  }
  return entries;
}

}  // namespace

TEST_SUITE("child_failure_table") {
TEST_CASE("child_failure_table: a two-section table gives one entry per child, root cause marked") {
  const std::vector<std::string> rows = {
      "Failures:",
      "[1]:",
      "  time      : 2026-11-30_06:57:13",
      "  host      : node053.cluster.local",
      "  rank      : 5 (local_rank: 1)",
      "  exitcode  : -15 (pid: 2002224)",
      "  error_file: <N/A>",
      "Root Cause (first observed failure):",
      "[0]:",
      "  time      : 2026-11-30_06:57:12",
      "  host      : node053.cluster.local",
      "  rank      : 4 (local_rank: 0)",
      "  exitcode  : 1 (pid: 2002223)",
  };
  CHECK(read_table(rows) ==
        std::vector<std::string>{
            "rank 5 local 1 exit -15 pid 2002224 host node053.cluster.local table 0 from 3@300 at 2026-11-30 06:57:13",
            "rank 4 local 0 exit 1 pid 2002223 host node053.cluster.local table 0 root from 10@1000 at 2026-11-30 06:57:12"});
}

TEST_CASE("child_failure_table: rows without a time row, or cut short, give nothing") {
  CHECK(read_table({"  rank      : 3 (local_rank: 1)", "  exitcode  : 1 (pid: 9)"}).empty());
  CHECK(read_table({"Failures:", "  time      : 2026-11-30_06:57:12", "  host      : h"}).empty());
  // A row name without a value is not a row.
  CHECK(read_table({"  time      :", "  exitcode  :"}).empty());
}

TEST_CASE("child_failure_table: odd values read as unknown (-1), a second table counts on") {
  const std::vector<std::string> rows = {
      "Failures:",
      "  time      : 2026-11-30_06:57:12",
      "  rank      : three",
      "  exitcode  : 1",
      "Failures:",
      "  time      : not a time",
      "  host      : localhost",
      "  rank      : 7 (local_rank: x)",
      "  exitcode  : -9 (pid: 12)",
  };
  CHECK(read_table(rows) == std::vector<std::string>{
                                "rank -1 local -1 exit 1 pid -1 host  table 0 from 2@200 at 2026-11-30 06:57:12",
                                "rank 7 local -1 exit -9 pid 12 host localhost table 1 from 6@600"});
}

TEST_CASE("child_failure_table: a long host name is kept to 256 bytes") {
  const auto entries = read_table({"  time      : x", "  host      : " + std::string(300, 'h'), "  exitcode  : 1"});
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].find(std::string(256, 'h') + " ") != std::string::npos);
  CHECK(entries[0].find(std::string(257, 'h')) == std::string::npos);
}

TEST_CASE("child_failure_table: its trigger literals are the row and heading heads") {
  const auto& literals = ChildFailureTable::trigger_literals();
  CHECK(literals.size() == 6);
  for (std::string_view l : {"  time      :", "  exitcode  :", "Failures:", "Root Cause (first observed failure)"})
    CHECK(std::find(literals.begin(), literals.end(), l) != literals.end());
}
}

}  // namespace megatriage
