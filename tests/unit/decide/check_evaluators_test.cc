// check_evaluators: each evaluator decides from the root's facts and fields; the built-in names
// the loader accepts are exactly the ones implemented.
#include "decide/check_evaluators.h"

#include <doctest/doctest.h>

namespace megatriage {
namespace {

struct Scene {
  RootCauseReport root;
  JobFacts job;
  std::vector<GpuGenerationEntry> gpus;
  ImportEvidence import;
  std::optional<CheckOutcome> run(const RunbookCheckEntry& e) {
    CheckScene s{root, job, gpus, &import, nullptr};
    return evaluate_check(e, s);
  }
  std::optional<CheckOutcome> run(const std::string& builtin) {
    RunbookCheckEntry e;
    e.id = builtin;
    e.evaluate = builtin;
    return run(e);
  }
};

}  // namespace

TEST_SUITE("check_evaluators") {

TEST_CASE("check_evaluators: every name the loader accepts is implemented") {
  for (std::string_view name : builtin_check_evaluators()) CHECK_MESSAGE(implements_evaluator(name), name);
  CHECK_FALSE(implements_evaluator("no_such_check"));
  Scene s;
  RunbookCheckEntry e;
  e.evaluate = "no_such_check";  // a hand-built entry the loader would have refused
  CHECK_FALSE(s.run(e));
}

TEST_CASE("check_evaluators: the shapes in the message, side by side") {
  Scene s;
  s.root.fields = {{"mat1", "256x96"}, {"mat2", "64x64"}};
  auto mat = s.run("shape_operands");
  REQUIRE(mat);
  CHECK(mat->status == CheckStatus::Failed);
  CHECK(mat->detail ==
        "mat1 256x96 x mat2 64x64: the inner sizes 96 and 64 differ; in a Linear layer mat2 is the weight, so the "
        "layer takes 64 input features and was given 96");
  s.root.fields = {{"shape", "[2, -1, 32]"}, {"size", "1000"}};
  CHECK(s.run("shape_operands")->detail.find("not a multiple of 64") != std::string::npos);
  s.root.fields = {{"shape", "[2, 4, 32]"}, {"size", "1000"}};
  CHECK(s.run("shape_operands")->detail == "the view [2, 4, 32] holds 256 elements, the tensor has 1000");
  s.root.fields = {{"saved", "torch.Size([4096, 512])"}, {"current", "torch.Size([4096, 640])"}, {"param", "w"}};
  CHECK(s.run("shape_operands")->detail ==
        "w: the checkpoint has torch.Size([4096, 512]), the model torch.Size([4096, 640]) (dimension 1 512 against 640)");
  s.root.fields = {{"what", "Shape mismatch"}};  // the family's catch-all: no figures to set side by side
  CHECK_FALSE(s.run("shape_operands"));
  CHECK_FALSE(s.run("shape_config"));
}

TEST_CASE("check_evaluators: one allocation larger than the GPU is a size bug, not a shortage") {
  Scene s;
  s.root.facts = {{"tried_to_allocate_bytes", "274877906944"}, {"gpu_total_bytes", "150110011392"}};
  CHECK(s.run("oom_allocation_size")->status == CheckStatus::Failed);
  s.root.facts["tried_to_allocate_bytes"] = "2147483648";
  CHECK(s.run("oom_allocation_size")->status == CheckStatus::Passed);
  s.root.facts.clear();
  CHECK_FALSE(s.run("oom_allocation_size"));  // no sizes in the message: nothing to say
}

TEST_CASE("check_evaluators: the divisor of a world-size assertion is its last number") {
  Scene s;
  s.root.rule_tags = {"world-size-divisor"};
  s.root.fields = {{"world_size", "1"}, {"divisor", "2"}};
  CHECK(s.run("world_size_product")->detail.find("model-parallel size 2 ") != std::string::npos);
  s.root.fields = {{"world_size", "24"}, {"divisor", "total_model_size (total_model_size=16)"}};
  CHECK(s.run("world_size_product")->detail.find("model-parallel size 16 ") != std::string::npos);
}

TEST_CASE("check_evaluators: a passing work tree check asks nothing of the user") {
  Scene s;
  s.import.trees = {"/lustre/proj/megatron"};
  s.import.work_tree = "/lustre/proj/megatron";
  auto out = s.run("work_tree");
  CHECK(out->status == CheckStatus::Passed);
  CHECK(out->detail == "every source frame is under /lustre/proj/megatron");
}

TEST_CASE("check_evaluators: a template fills facts, then fields, else falls back or is left out") {
  Scene s;
  RunbookCheckEntry e;
  e.evaluate = "template";
  e.status = CheckStatus::Failed;
  e.detail = "node {node}, worker {worker_pid}, {literal braces} stay";
  s.root.facts = {{"node", "n7"}};
  s.root.fields = {{"worker_pid", "980"}, {"node", "from-the-field"}};
  auto out = s.run(e);
  REQUIRE(out);
  CHECK(out->status == CheckStatus::Failed);
  CHECK(out->detail == "node n7, worker 980, {literal braces} stay");
  s.root.fields.erase("worker_pid");
  CHECK_FALSE(s.run(e));
  e.has_otherwise = true;
  e.otherwise_status = CheckStatus::Unknown;
  e.otherwise_detail = "on {node}";
  CHECK(s.run(e)->detail == "on n7");
  CHECK(s.run(e)->status == CheckStatus::Unknown);
}

TEST_CASE("check_evaluators: divisible, from facts or the message's fields") {
  Scene s;
  RunbookCheckEntry e;
  e.evaluate = "divisible";
  e.dividend = "num_experts";
  e.divisors = {"expert_model_parallel_size"};
  s.root.facts = {{"num_experts", "8"}, {"expert_model_parallel_size", "3"}};
  CHECK(s.run(e)->status == CheckStatus::Failed);
  CHECK(s.run(e)->detail == "num_experts 8 % expert_model_parallel_size 3 = 2");
  s.root.facts["expert_model_parallel_size"] = "4";
  CHECK(s.run(e)->status == CheckStatus::Passed);
  e.divisor_factor = 2;
  e.divisors = {"expert_model_parallel_size", "tp"};
  s.root.fields = {{"tp", "2"}};
  CHECK(s.run(e)->detail == "num_experts 8 % (2 x expert_model_parallel_size 4 x tp 2) = 8");
  s.root.facts.erase("num_experts");
  CHECK(s.run(e)->status == CheckStatus::Unknown);
  CHECK(s.run(e)->detail.find("missing num_experts") == 0);
}
}

}  // namespace megatriage
