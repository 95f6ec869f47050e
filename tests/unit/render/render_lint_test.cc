// render_lint: lint findings as JSON and as SARIF 2.1.0, parsed back and read by field.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "render/render_lint.h"

using namespace megatriage;
using nlohmann::json;

namespace {
std::vector<LintedScript> sample() {
  LintedScript a{"jobs/train job.sbatch", true, {}, {}};
  a.findings.push_back(LintFinding{12, "lint.bare-torchrun", "torchrun is bare", "use uv run", false, false});
  a.findings.push_back(LintFinding{0, "lint.no-venv", "no venv", "uv sync", false, true});  // suppressed
  a.findings.push_back(LintFinding{3, "lint.cuda-device-max-connections", "TP unknown", "print it", true, false});
  LintedScript b{"missing.sbatch", false, {}, {Diagnostic{Severity::Error, "read.open-failed", "cannot open", "missing.sbatch", 0, "", 1}}};
  return {a, b};
}
std::vector<LintRuleEntry> table() {
  return {LintRuleEntry{"lint.bare-torchrun", {"import"}, {LintText{"default", "why", "fix"}}, ""},
          LintRuleEntry{"lint.no-venv", {"import"}, {LintText{"default", "why2", "fix2"}}, ""}};
}
}  // namespace

TEST_SUITE("render_lint") {
TEST_CASE("render_lint: JSON lists every finding, suppressed ones marked, and the summary") {
  LintTally tally;
  tally.add(sample()[0].findings);
  tally.not_linted = 1;
  const json doc = json::parse(render_lint_json(sample(), tally));
  CHECK(doc["schema_version"] == 1);
  CHECK(doc["scripts"].size() == 2);
  CHECK(doc["scripts"][0]["findings"].size() == 3);
  CHECK(doc["scripts"][0]["findings"][0]["line"] == 12);
  CHECK(doc["scripts"][0]["findings"][1]["line"].is_null());
  CHECK(doc["scripts"][0]["findings"][1]["suppressed"] == true);
  CHECK(doc["scripts"][0]["findings"][2]["level"] == "note");
  CHECK(doc["scripts"][1]["linted"] == false);
  CHECK(doc["scripts"][1]["problems"][0]["code"] == "read.open-failed");
  CHECK(doc["summary"]["not_linted"] == 1);
  CHECK(doc["summary"]["suppressed"] == 1);
}

TEST_CASE("render_lint: SARIF 2.1.0 with the rules, a result per shown finding on its line") {
  const json doc = json::parse(render_lint_sarif(sample(), table()));
  CHECK(doc["version"] == "2.1.0");
  CHECK(doc["$schema"].get<std::string>().find("sarif-schema-2.1.0.json") != std::string::npos);
  REQUIRE(doc["runs"].size() == 1);
  const json& run = doc["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "megatriage");
  CHECK(run["tool"]["driver"]["rules"].size() == 2);
  CHECK(run["tool"]["driver"]["rules"][0]["id"] == "lint.bare-torchrun");
  REQUIRE(run["results"].size() == 2);  // the suppressed finding is left out
  const json& first = run["results"][0];
  CHECK(first["ruleId"] == "lint.bare-torchrun");
  CHECK(first["ruleIndex"] == 0);
  CHECK(first["level"] == "error");
  CHECK(first["message"]["text"] == "torchrun is bare. Fix: use uv run");
  const json& where = first["locations"][0]["physicalLocation"];
  CHECK(where["artifactLocation"]["uri"] == "jobs/train%20job.sbatch");
  CHECK(where["region"]["startLine"] == 12);
  CHECK(run["results"][1]["level"] == "note");
  CHECK_FALSE(run["results"][1].contains("ruleIndex"));  // not in the table given
  CHECK(run["invocations"][0]["executionSuccessful"] == false);
  CHECK(run["invocations"][0]["toolExecutionNotifications"][0]["descriptor"]["id"] == "read.open-failed");
}
}
