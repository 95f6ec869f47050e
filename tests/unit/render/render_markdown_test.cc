// render_markdown: a short summary whatever the job, and log text that stays text.
#include <doctest/doctest.h>

#include <algorithm>

#include "render/render.h"

using namespace megatriage;

namespace {
std::size_t line_count(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

Report big_report() {
  Report r;
  r.verdict = Verdict::Failure;
  RootCauseReport rc;
  rc.category = Category::Nccl;
  rc.rule = "nccl.error";
  rc.title = "NCCL error";
  rc.file = "logs/x.err";
  rc.line = 3;
  rc.rank = 7;
  rc.host = "node1";
  rc.headline = "headline";
  rc.exception = "RuntimeError: boom";
  rc.explain = "explained";
  rc.same_failure_ranks = {1, 2, 3};
  rc.frames.push_back(Frame{"/ws/train.py", 10, "main", "x()"});
  for (int i = 0; i < 40; ++i) {
    rc.checks.push_back(CheckResult{"c" + std::to_string(i), "check", i % 3 == 0 ? CheckStatus::Failed : CheckStatus::Unknown, "d", false});
    rc.checks.push_back(advice_check("advice " + std::to_string(i), ""));
  }
  r.root_cause = rc;
  for (int i = 0; i < 50; ++i) {
    SymptomGroup g;
    g.rule = "nccl.watchdog-timeout";
    g.title = "watchdog";
    g.count = 4;
    g.ranks = {0, 1, 2, 3};
    g.delay_us = 30'000'000;
    g.first_file = "logs/y.err";
    g.first_line = 5;
    r.symptoms.push_back(g);
  }
  return r;
}
}  // namespace

TEST_SUITE("render_markdown") {
TEST_CASE("render_markdown: at most 60 lines however many checks and symptoms, saying what was cut") {
  const std::string out = render_markdown(big_report());
  CHECK(line_count(out) <= kMaxMarkdownLines);
  CHECK(out.find("30 more checks in the JSON report") != std::string::npos);
  CHECK(out.find("40 more groups in the JSON report") != std::string::npos);
  CHECK(out.starts_with("## megatriage: FAILURE — NCCL\n"));
  // Failed checks come first.
  CHECK(out.find("❌ failed") < out.find("❔ unknown"));
}

TEST_CASE("render_markdown: log text cannot break the table or inject markup") {
  Report r = big_report();
  r.root_cause->exception = "ValueError: a|b <script>alert(1)</script> ![x](http://e/x.png) `c` *d* \x1b[31m@team\nnext";
  const std::string out = render_markdown(r);
  const std::size_t at = out.find("| exception | ");
  REQUIRE(at != std::string::npos);
  const std::string row = out.substr(at, out.find('\n', at) - at);
  CHECK(row == "| exception | ValueError: a\\|b &lt;script&gt;alert(1)&lt;/script&gt; !\\[x\\](http://e/x.png) "
               "\\`c\\` \\*d\\* \\@team next |");
}

TEST_CASE("render_markdown: no failure says so and lists the noise") {
  Report r;
  r.files.resize(2);
  const std::string out = render_markdown(r);
  CHECK(out.starts_with("## megatriage: no failure found\n\nNo failure in 2 files read.\n"));
}
}
