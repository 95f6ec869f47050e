// runbook_checks: the table decides which checks a root gets (conditions, `decided`, order, an
// entry turned off), and every check of a report gets a unique id.
#include "decide/runbook_checks.h"

#include <doctest/doctest.h>

namespace megatriage {
namespace {

RunbookCheckEntry template_entry(std::string id, CheckStatus status, std::vector<CheckCondition> when) {
  RunbookCheckEntry e;
  e.id = std::move(id);
  e.text = "text of " + e.id;
  e.evaluate = "template";
  e.status = status;
  e.detail = "detail";
  e.when = std::move(when);
  return e;
}

std::vector<std::string> ids(const std::vector<CheckResult>& checks) {
  std::vector<std::string> out;
  for (const auto& c : checks) out.push_back(c.id);
  return out;
}

}  // namespace

TEST_SUITE("runbook_checks") {

TEST_CASE("runbook_checks: every part of a condition must hold") {
  RootCauseReport r;
  r.category = Category::Oom;
  r.rule_tags = {"host-oom"};
  r.facts = {{"args_dump_seen", "1"}};
  r.frames = {{"/ws/megatron/core/x.py", 1, "f", ""}};
  CheckCondition c;
  CHECK(condition_holds(c, r));  // nothing asked
  c.categories = {Category::Shape};
  CHECK_FALSE(condition_holds(c, r));
  c.categories = {Category::Shape, Category::Oom};
  CHECK(condition_holds(c, r));
  c.tags_none = {"host-oom"};
  CHECK_FALSE(condition_holds(c, r));
  c.tags_none.clear();
  c.tags_any = {"sigkill", "host-oom"};
  CHECK(condition_holds(c, r));
  c.facts_any = {"world_size"};
  CHECK_FALSE(condition_holds(c, r));
  c.facts_any = {"world_size", "args_dump_seen"};
  CHECK(condition_holds(c, r));
  c.frames_any = {"/deepspeed/"};
  CHECK_FALSE(condition_holds(c, r));
  c.frames_any = {"/megatron/"};
  CHECK(condition_holds(c, r));
}

TEST_CASE("runbook_checks: table order, `decided` and an entry turned off") {
  RootCauseReport r;
  r.category = Category::Shape;
  JobFacts job;
  std::vector<GpuGenerationEntry> gpus;
  CheckScene scene{r, job, gpus, nullptr, nullptr};
  CheckCondition shape;
  shape.categories = {Category::Shape};
  CheckCondition decided = shape;
  decided.decided = true;
  std::vector<RunbookCheckEntry> table = {
      template_entry("b_first", CheckStatus::Unknown, {shape}),
      template_entry("unknown_only_if_decided", CheckStatus::Unknown, {decided}),
      template_entry("failed_if_decided", CheckStatus::Failed, {decided}),
      template_entry("turned_off", CheckStatus::Failed, {}),
      template_entry("a_last", CheckStatus::Passed, {shape}),
  };
  CHECK(ids(run_check_table(table, scene)) == std::vector<std::string>{"b_first", "failed_if_decided", "a_last"});
  r.category = Category::Import;
  CHECK(run_check_table(table, scene).empty());
}

TEST_CASE("runbook_checks: unique ids, advice numbered, repeats suffixed, idempotent") {
  std::vector<CheckResult> checks = {
      {"world_size_product", "t", CheckStatus::Passed, "", false},
      {"lint.bare-torchrun", "t", CheckStatus::Failed, "a.sbatch:3", false},
      {"lint.bare-torchrun", "t", CheckStatus::Failed, "b.sbatch:7", false},
      {"lint.bare-torchrun.2", "t", CheckStatus::Failed, "odd but possible", false},
      advice_check("first", ""),
      advice_check("second", ""),
  };
  give_checks_unique_ids(checks);
  CHECK(ids(checks) == std::vector<std::string>{"world_size_product", "lint.bare-torchrun", "lint.bare-torchrun.3",
                                                "lint.bare-torchrun.2", "advice.1", "advice.2"});
  auto again = checks;
  give_checks_unique_ids(again);
  CHECK(ids(again) == ids(checks));
}
}

}  // namespace megatriage
