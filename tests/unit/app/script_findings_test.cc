// script_findings: a batch script's lint findings join the root cause's checks before the rule's
// advice, and the ones that can explain the failure add a reason.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/script_findings.h"
#include "lint/lint.h"
#include "lint/lint_rules.h"
#include "support/repo_rules.h"

using namespace megatriage;

namespace {

// A two-node job launched with a bare `torchrun` and no rendezvous settings.
const std::string kScript =
    "#!/bin/bash\n"
    "#SBATCH --nodes=2\n"
    "#SBATCH --ntasks-per-node=1\n"
    "srun torchrun --nproc_per_node=8 pretrain_gpt.py\n";

const KnowledgeTables& tables() { return test::repo_matcher().tables(); }
const std::vector<LintRuleEntry>& lint_rules() { return tables().lint_rules; }

std::string write_temp(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() / "megatriage-script-findings-test";
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

}  // namespace

TEST_SUITE("script_findings") {
TEST_CASE("script_findings: which lint findings explain which categories") {
  CHECK(lint_finding_explains("lint.bare-torchrun", category_name(Category::Import), lint_rules()));
  CHECK(lint_finding_explains("lint.no-venv", category_name(Category::Import), lint_rules()));
  CHECK(lint_finding_explains("lint.master-addr", category_name(Category::Nccl), lint_rules()));
  CHECK(lint_finding_explains("lint.nproc-vs-gpus", category_name(Category::Shape), lint_rules()));
  CHECK_FALSE(lint_finding_explains("lint.bare-torchrun", category_name(Category::Oom), lint_rules()));
  CHECK_FALSE(lint_finding_explains("lint.bare-torchrun", category_name(Category::Nccl), lint_rules()));
  CHECK_FALSE(lint_finding_explains("lint.master-addr", category_name(Category::Unknown), lint_rules()));
}

TEST_CASE("script_findings: findings go before the advice, as failed checks with the script line") {
  LintOptions options;
  options.check_filesystem = false;
  options.texts = &lint_rules();
  const auto findings = lint_script(kScript, options);
  REQUIRE_FALSE(findings.empty());
  const std::string path = write_temp("job.sbatch", kScript);

  Report report;
  RootCauseReport rc;
  rc.category = Category::Import;
  rc.checks.push_back(CheckResult{"work_tree", "w", CheckStatus::Passed, "d", false});
  rc.checks.push_back(advice_check("advice one", ""));
  rc.checks.push_back(advice_check("advice two", ""));
  report.root_cause = rc;
  DiagnosticSink diags;
  add_script_findings(report, {path}, tables(), diags);

  CHECK(diags.items().empty());
  REQUIRE(report.scripts.size() == 1);
  const auto& checks = report.root_cause->checks;
  REQUIRE(checks.size() == 3 + findings.size());
  CHECK(checks.front().id == "work_tree");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const CheckResult& c = checks[1 + i];
    CAPTURE(c.id);
    CHECK(c.id == findings[i].rule);
    CHECK(c.status == CheckStatus::Failed);
    CHECK_FALSE(c.advice);
    CHECK(c.detail.rfind(path + ":" + std::to_string(findings[i].line) + ": ", 0) == 0);
  }
  CHECK(checks[checks.size() - 2].text == "advice one");
  CHECK(checks.back().text == "advice two");
  std::size_t explaining = 0;
  for (const auto& f : findings) explaining += lint_finding_explains(f.rule, category_name(Category::Import), lint_rules()) ? 1 : 0;
  CHECK(report.root_cause->reasons.size() == explaining);
}

TEST_CASE("script_findings: no root cause lists the script only; an unreadable one is a warning") {
  const std::string path = write_temp("plain.sbatch", kScript);
  Report report;
  DiagnosticSink diags;
  add_script_findings(report, {path, path + ".missing"}, tables(), diags);
  CHECK(report.scripts == std::vector<std::string>{path});
  CHECK_FALSE(report.root_cause);
  REQUIRE(diags.items().size() == 1);
  CHECK(diags.items()[0].code == "read.open-failed");
  CHECK(diags.items()[0].severity == Severity::Warning);
}

TEST_CASE("script_findings: a directory, an empty file or a log given as the script is a warning, not a crash") {
  const std::string dir = std::filesystem::path(write_temp("x.sbatch", kScript)).parent_path().string();
  const std::string empty = write_temp("empty.sbatch", "");
  const std::string log = write_temp("rank0.err", "[rank0]: RuntimeError: boom\n");
  Report report;
  DiagnosticSink diags;
  add_script_findings(report, {dir, empty, log}, tables(), diags);
  CHECK(report.scripts.empty());
  REQUIRE(diags.items().size() == 3);
  CHECK(diags.items()[0].code == "read.directory");
  CHECK(diags.items()[1].code == "read.empty-file");
  CHECK(diags.items()[2].code == "lint.not-a-script");
}

TEST_CASE("script_findings: suppressed findings and notes are not checks") {
  const std::string path = write_temp("quiet.sbatch", "# megatriage: disable=lint.bare-torchrun,lint.launcher-args\n" + kScript);
  Report report;
  report.root_cause = RootCauseReport{};
  DiagnosticSink diags;
  add_script_findings(report, {path}, tables(), diags);
  for (const CheckResult& c : report.root_cause->checks) {
    CAPTURE(c.id);
    CHECK(c.id != "lint.bare-torchrun");
    CHECK(c.id != "lint.launcher-args");
  }
}

TEST_CASE("script_findings: a script SLURM printed, its header dropped, lines as the script's") {
  Report report;
  report.root_cause = RootCauseReport{};
  DiagnosticSink diags;
  add_script_text_findings(report, "sacct:25", "Batch Script for 25\n----------\n" + kScript, tables(), diags);
  CHECK(diags.items().empty());
  CHECK(report.scripts == std::vector<std::string>{"sacct:25"});
  bool torchrun = false;
  for (const CheckResult& c : report.root_cause->checks)
    if (c.id == "lint.bare-torchrun") torchrun = c.detail.rfind("sacct:25:4: ", 0) == 0;
  CHECK(torchrun);
  Report other;
  add_script_text_findings(other, "sacct:26", "Batch Script for 26\n(null)\n", tables(), diags);
  CHECK(other.scripts.empty());
  REQUIRE(diags.items().size() == 1);
  CHECK(diags.items()[0].code == "lint.not-a-script");
}
}
