#include <doctest/doctest.h>

#include "base/diagnostics.h"

using namespace megatriage;

TEST_SUITE("diagnostics") {
TEST_CASE("diagnostics: grouped by code in first-seen order, with files, occurrences and worst severity") {
  std::vector<Diagnostic> list;
  for (int i = 0; i < 512; ++i)
    list.push_back(Diagnostic{Severity::Info, "timeline.year-from-mtime", "took 2026 from the mtime",
                              "logs/r" + std::to_string(i) + ".err", 0, "", 1});
  list.insert(list.begin() + 3, Diagnostic{Severity::Warning, "read.gzip-truncated", "cut", "logs/a.gz", 0, "", 2});
  list.push_back(Diagnostic{Severity::Warning, "timeline.year-from-mtime", "x", "logs/r0.err", 0, "", 3});
  std::vector<DiagnosticGroup> groups = group_diagnostics_by_code(list);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].code == "timeline.year-from-mtime");
  CHECK(groups[0].items.size() == 513);
  CHECK(groups[0].paths == 512);  // logs/r0.err twice
  CHECK(groups[0].occurrences == 515);
  CHECK(groups[0].severity == Severity::Warning);
  CHECK(groups[0].items.front()->path == "logs/r0.err");
  CHECK(groups[1].code == "read.gzip-truncated");
  CHECK(groups[1].occurrences == 2);
  CHECK(group_diagnostics_by_code({}).empty());
}
}
