#include <doctest/doctest.h>

#include "decide/classify.h"
#include "decide/headline.h"

using namespace megatriage;

namespace {
Rule rule(std::string id, std::string title, std::string headline, std::vector<std::string> tags = {}) {
  Rule r;
  r.id = std::move(id);
  r.title = std::move(title);
  r.headline = std::move(headline);
  r.tags = std::move(tags);
  return r;
}

RootCauseReport root(const Rule& rl, Category c, int rank, std::map<std::string, std::string> fields = {}) {
  RootCauseReport r;
  r.rule = rl.id;
  r.title = rl.title;
  r.category = c;
  r.rank = rank;
  r.fields = std::move(fields);
  r.evidence = Evidence::Traceback;
  return r;
}

std::vector<SymptomGroup> none;

SymptomGroup same_failure(const std::string& rule_id, std::vector<int> ranks) {
  SymptomGroup g;
  g.rule = rule_id;
  g.role = RuleRole::Cause;
  g.count = ranks.size();
  g.ranks = std::move(ranks);
  return g;
}
}  // namespace

TEST_SUITE("headline") {
TEST_CASE("headline: the rule's template carries the figures, then the rank") {
  Rule r = rule("python.module-not-found", "Python module not found", "No module named '{module}'");
  RootCauseReport rc = root(r, Category::Import, 1, {{"module", "wandb"}});
  rc.exception = "ModuleNotFoundError: No module named 'wandb'";
  compose_headline(rc, &r, none, {0, 1});
  CHECK(rc.headline == "No module named 'wandb' on rank 1");
  CHECK(rc.failure_name == "IMPORT");

  Rule heads = rule("megatron.heads-not-multiple-of-tp", "Attention heads not a multiple of TP",
                    "num_attention_heads {heads} is not a multiple of TP {tp}");
  RootCauseReport h = root(heads, Category::Shape, 0, {{"heads", "3"}, {"tp", "2"}});
  compose_headline(h, &heads, none, {0, 1});
  CHECK(h.headline == "num_attention_heads 3 is not a multiple of TP 2 on rank 0");
}

TEST_CASE("headline: an unknown rank is not said; every rank failing alike is") {
  Rule r = rule("x.y", "Something failed", "");
  RootCauseReport unknown = root(r, Category::Shape, -1);
  compose_headline(unknown, &r, none, {0, 1, 2, 3});
  CHECK(unknown.headline == "Something failed");
  CHECK(unknown.headline.find("unknown") == std::string::npos);

  RootCauseReport all = root(r, Category::Shape, 2);
  std::vector<SymptomGroup> groups{same_failure("x.y", {0, 1, 3})};
  compose_headline(all, &r, groups, {0, 1, 2, 3});
  CHECK(groups[0].same_as_root);
  CHECK(all.headline == "Something failed on every rank");
  CHECK(all.every_rank);
  CHECK(all.same_failure_ranks == std::vector<int>{0, 1, 2, 3});

  // The logs' world size says there are more ranks than the ones that failed.
  RootCauseReport some = root(r, Category::Shape, 2);
  some.facts["world_size"] = "8";
  groups = {same_failure("x.y", {0, 1, 3})};
  compose_headline(some, &r, groups, {0, 1, 2, 3});
  CHECK(some.headline == "Something failed on rank 2");
  CHECK_FALSE(some.every_rank);
  CHECK(some.same_failure_ranks.size() == 4);
}

TEST_CASE("headline: a time limit is job-wide (no rank, no host)") {
  Rule r = rule("slurm.time-limit", "Job or step cancelled at its time limit",
                "Time limit reached: SLURM cancelled {what} {id}", {"time-limit"});
  RootCauseReport rc = root(r, Category::Unknown, -1, {{"what", "STEP"}, {"id", "19.0"}});
  rc.host = "node1";
  rc.evidence = Evidence::Line;
  rc.facts["last_iteration"] = "2";
  compose_headline(rc, &r, none, {});
  CHECK(rc.headline == "Time limit reached: SLURM cancelled STEP 19.0 after iteration 2");
  CHECK(rc.failure_name == "Job or step cancelled at its time limit");
}

TEST_CASE("headline: the verdict names an unrecognised exception by its class, never UNKNOWN") {
  RootCauseReport rc;
  rc.rule = kUnclassifiedRule;
  rc.title = "Python exception not recognised by any rule";
  rc.category = Category::Unknown;
  rc.evidence = Evidence::Traceback;
  rc.rank = -1;
  rc.exception = "torch.distributed.DistBackendError: NCCL error in: foo.cpp:1";
  compose_headline(rc, nullptr, none, {});
  CHECK(rc.failure_name == "DistBackendError");
  CHECK(rc.headline == "DistBackendError: NCCL error in: foo.cpp:1");
  // A headline set by the checks (OOM, hang) is kept.
  RootCauseReport oom = rc;
  oom.headline = "OOM during backward";
  compose_headline(oom, nullptr, none, {});
  CHECK(oom.headline == "OOM during backward");
}

TEST_CASE("headline: a catch-all's group is the same failure only for the very same exception line") {
  RootCauseReport rc;
  rc.rule = kUnclassifiedRule;
  rc.category = Category::Unknown;
  rc.evidence = Evidence::Traceback;
  rc.rank = 3;
  rc.exception = "CheckpointingException: Cannot find global shape metadata";
  SymptomGroup other = same_failure(kUnclassifiedRule, {2});
  other.example = "KeyError: 'nd_reformulated_orig_global_shape'";
  std::vector<SymptomGroup> groups{other};
  compose_headline(rc, nullptr, groups, {2, 3});
  CHECK_FALSE(groups[0].same_as_root);
  CHECK_FALSE(rc.every_rank);
  CHECK(rc.headline.find("every rank") == std::string::npos);
  RootCauseReport again = rc;
  again.headline.clear();
  again.same_failure_ranks.clear();
  groups[0].example = rc.exception;
  compose_headline(again, nullptr, groups, {2, 3});
  CHECK(groups[0].same_as_root);
  CHECK(again.every_rank);
}

TEST_CASE("headline: exception class of an exception line") {
  CHECK(exception_class("ValueError: bad") == "ValueError");
  CHECK(exception_class("torch.OutOfMemoryError: CUDA out of memory") == "OutOfMemoryError");
  CHECK(exception_class("KeyboardInterrupt") == "KeyboardInterrupt");
  CHECK(exception_class("something went wrong: x") == "");
  CHECK(exception_class("") == "");
}

TEST_CASE("headline: symptom delays never go negative inside a second or the root's bounds") {
  const std::int64_t s = 1000000;
  const std::int64_t root = 100 * s + 536000;  // a millisecond upper bound
  // Stamped to the second, 0.5 s "before" an explicit millisecond root: the same second.
  CHECK(symptom_delay(100 * s, root, true, std::nullopt) == 0);
  CHECK(symptom_delay(102 * s, root, true, std::nullopt) == 2 * s - 536000);
  // Really earlier than an explicit root: kept.
  CHECK(symptom_delay(90 * s, root, true, std::nullopt) == 90 * s - root);
  // The root is only bounded above: a symptom inside its bounds cannot be ordered against it.
  CHECK_FALSE(symptom_delay(99 * s, root, false, std::nullopt));
  CHECK_FALSE(symptom_delay(99 * s, root, false, 98 * s));
  // Before the root's lower bound: really earlier.
  CHECK(symptom_delay(90 * s, root, false, 98 * s) == 90 * s - root);
}
}
