// render_github: workflow commands escaped as the Actions toolkit does, one command a line.
#include <doctest/doctest.h>

#include <sstream>

#include "render/render.h"

using namespace megatriage;

TEST_SUITE("render_github") {
TEST_CASE("render_github: data escapes %, CR and LF; properties also : and ,") {
  CHECK(github_escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext");
  CHECK(github_escape_data("a:b,c") == "a:b,c");
  CHECK(github_escape_property("logs/a:b,c.err") == "logs/a%3Ab%2Cc.err");
  CHECK(github_escape_property("50%\n") == "50%25%0A");
  // `%` first: an already escaped-looking text is escaped again, not decoded.
  CHECK(github_escape_data("%0A") == "%250A");
  CHECK(github_escape_property("::error::") == "%3A%3Aerror%3A%3A");
}

TEST_CASE("render_github: error at the root's file and line, a warning per failed check, a notice") {
  Report r;
  r.verdict = Verdict::Failure;
  RootCauseReport rc;
  rc.category = Category::Oom;
  rc.rule = "cuda.oom";
  rc.failure_name = "OOM";
  rc.file = "logs/job,1:x.err";
  rc.line = 84;
  rc.headline = "OOM on rank 1: tried 2.00 GiB, 100% used";
  rc.exception = "torch.OutOfMemoryError: CUDA out of memory.\n::error::injected";
  rc.checks.push_back(CheckResult{"a", "Allocation fits", CheckStatus::Failed, "tried 256 GiB\nof 80", false});
  rc.checks.push_back(CheckResult{"b", "Passes", CheckStatus::Passed, "fine", false});
  rc.checks.push_back(advice_check("advice", "not decided"));
  r.root_cause = rc;
  const std::string out = render_github(r);
  std::istringstream lines(out);
  std::vector<std::string> got;
  for (std::string l; std::getline(lines, l);) got.push_back(l);
  REQUIRE(got.size() == 3);  // error, one warning (the failed check), notice
  CHECK(got[0].starts_with("::error file=logs/job%2C1%3Ax.err,line=84,title=megatriage%3A OOM::OOM on rank 1"));
  CHECK(got[0].find("100%25 used%0Atorch.OutOfMemoryError") != std::string::npos);
  // A log line that looks like a command stays inside the message.
  CHECK(got[0].find("%0A::error::injected") != std::string::npos);
  CHECK(got[1] == "::warning title=Check failed%3A Allocation fits::tried 256 GiB%0Aof 80");
  CHECK(got[2].starts_with("::notice title=megatriage%3A FAILURE — OOM::"));
}

TEST_CASE("render_github: no failure is one notice") {
  Report r;
  r.files.resize(3);
  CHECK(render_github(r) == "::notice title=megatriage%3A no failure found::No failure in the 3 file(s) read.\n");
}
}
