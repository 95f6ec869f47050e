// Renaming a rule in JSON keeps the decisions made on it: the checks and the postmortem ask for
// the rule's tags, never its id (issue 16). Each case renames a repository rule, keeps or drops
// its tags, and runs the real pipeline or the sacct stage on it.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "app/postmortem.h"
#include "app/triage.h"
#include "input/reader.h"
#include "match/rule_matcher.h"
#include "match/rule_tags.h"
#include "match/rules.h"
#include "support/repo_rules.h"

using namespace megatriage;

namespace {

// The repository's rules with `id` renamed to `new_id`; its tags kept or dropped.
std::vector<Rule> renamed_rules(const std::string& id, const std::string& new_id, bool keep_tags) {
  DiagnosticSink diags;
  std::vector<Rule> rules = load_rules({default_rules_dir()}, diags);
  bool found = false;
  for (Rule& r : rules) {
    if (r.id != id) continue;
    found = true;
    r.id = new_id;
    if (!keep_tags) r.tags.clear();
  }
  REQUIRE(found);
  return rules;
}

Report triage_text(const std::string& text, std::vector<Rule> rules) {
  DiagnosticSink diags;
  KnowledgeTables tables;
  load_rules({default_rules_dir()}, diags, 1, nullptr, &tables);
  RuleMatcher matcher(std::move(rules), diags);
  matcher.set_tables(std::move(tables));
  SourceFile file;
  file.path = file.display_path = "rank0.err";
  file.size_bytes = text.size();
  file.mtime_us = 1795000000000000LL;
  auto source = memory_source(text, Compression::None, file.path, diags);
  std::vector<FileResult> results;
  results.push_back(analyze_source(file, *source, matcher, AnalyzeOptions{}, diags));
  TriageOptions options;
  options.paths.clear();
  options.jobs = 1;
  DiagnosticSink run_diags;
  return build_report(results, matcher, options, run_diags);
}

const CheckResult* find_check(const RootCauseReport& r, const std::string& id) {
  for (const auto& c : r.checks)
    if (c.id == id) return &c;
  return nullptr;
}

constexpr const char* kCdmcAssertion =
    "Traceback (most recent call last):\n"
    "  File \"/ws/megatron/pretrain_gpt.py\", line 9, in <module>\n"
    "RuntimeError: Using sequence parallelism requires setting the environment variable "
    "CUDA_DEVICE_MAX_CONNECTIONS to 1\n";

}  // namespace

TEST_SUITE("renamed_rule") {

TEST_CASE("renamed_rule: a renamed rule with the same tag still drives its check") {
  Report report = triage_text(kCdmcAssertion, renamed_rules("megatron.cuda-device-max-connections",
                                                            "site.cdmc-assertion", true));
  REQUIRE(report.root_cause);
  CHECK(report.root_cause->rule == "site.cdmc-assertion");
  CHECK(has_tag(report.root_cause->rule_tags, rule_tag::kCudaDeviceMaxConnections));
  const CheckResult* c = find_check(*report.root_cause, "cuda_device_max_connections");
  REQUIRE(c != nullptr);
  CHECK(c->status == CheckStatus::Failed);
  CHECK(c->detail.rfind("Megatron asserted on it: export CUDA_DEVICE_MAX_CONNECTIONS=1", 0) == 0);
}

TEST_CASE("renamed_rule: without its tag the same rule no longer drives the check") {
  Report report = triage_text(kCdmcAssertion, renamed_rules("megatron.cuda-device-max-connections",
                                                            "site.cdmc-assertion", false));
  REQUIRE(report.root_cause);
  CHECK(report.root_cause->rule == "site.cdmc-assertion");
  // Undecidable from the logs (no parallel sizes) and not asserted: the check is left out.
  CHECK(find_check(*report.root_cause, "cuda_device_max_connections") == nullptr);
}

TEST_CASE("renamed_rule: the host OOM headline follows the tag, not the `host.` prefix") {
  const std::string line =
      "slurmstepd: error: Detected 1 oom_kill event in StepId=42.0. Some of the step tasks have "
      "been OOM Killed.\n";
  Report tagged = triage_text(line, renamed_rules("host.oom-kill", "site.cgroup-kill", true));
  REQUIRE(tagged.root_cause);
  CHECK(tagged.root_cause->rule == "site.cgroup-kill");
  // No rank is known: the headline says nothing of it ("on an unknown rank" is not a figure).
  CHECK(tagged.root_cause->headline.rfind("Host OOM", 0) == 0);
  CHECK(tagged.root_cause->headline.find("unknown") == std::string::npos);
  CHECK(tagged.root_cause->facts.at("oom_kill_events") == "1");
  Report untagged = triage_text(line, renamed_rules("host.oom-kill", "site.cgroup-kill", false));
  REQUIRE(untagged.root_cause);
  CHECK(untagged.root_cause->headline.rfind("OOM", 0) == 0);
  CHECK(untagged.root_cause->facts.count("oom_kill_events") == 0);
}

TEST_CASE("renamed_rule: postmortem confirms a time limit by tag whatever the rule is called") {
  SlurmJobInfo job;
  job.job_id = "19";
  job.state = "TIMEOUT";
  job.time_limit_hit = true;
  Report report;
  report.root_cause.emplace();
  report.root_cause->rule = "site.wall-clock";
  report.root_cause->evidence = Evidence::Line;
  report.root_cause->rule_tags = {std::string(rule_tag::kTimeLimit)};
  apply_slurm_facts(report, job, test::repo_matcher().tables().slurm_states);
  REQUIRE(report.root_cause);
  CHECK(report.root_cause->rule == "site.wall-clock");
  CHECK(std::find(report.root_cause->reasons.begin(), report.root_cause->reasons.end(),
                  "sacct: state TIMEOUT (elapsed unknown)") != report.root_cause->reasons.end());
  Report untagged;
  untagged.root_cause.emplace();
  untagged.root_cause->rule = "slurm.time-limit";  // the old id alone decides nothing now
  untagged.root_cause->evidence = Evidence::Line;
  apply_slurm_facts(untagged, job, test::repo_matcher().tables().slurm_states);
  REQUIRE(untagged.root_cause);
  CHECK(untagged.root_cause->rule == "sacct.timeout");
}

}  // TEST_SUITE
