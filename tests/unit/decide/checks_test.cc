#include <doctest/doctest.h>

#include "decide/checks.h"
#include "match/rules.h"
#include "support/repo_rules.h"

using namespace megatriage;

namespace {
const RuleMatcher& matcher() { return test::repo_matcher(); }

const CheckResult* find(const RootCauseReport& r, const std::string& id) {
  for (const auto& c : r.checks)
    if (c.id == id) return &c;
  return nullptr;
}

RootCauseReport evaluate(RootCauseReport r, std::map<std::string, std::string> facts) {
  JobFacts job;
  job.values = std::move(facts);
  Event root;
  evaluate_checks(r, root, job, {}, matcher());
  return r;
}
}  // namespace

TEST_SUITE("checks") {
TEST_CASE("checks: sizes parse to bytes") {
  CHECK(parse_size_bytes("2.00 GiB") == 2147483648LL);
  CHECK(parse_size_bytes("637.84 MiB") == 668823716LL);
  CHECK(parse_size_bytes("512 B") == 512);
  CHECK(parse_size_bytes("1.5 TiB") == 1649267441664LL);
  CHECK(parse_size_bytes("lots") == -1);
  CHECK(parse_size_bytes("3 GB") == -1);
}

TEST_CASE("checks: OOM phase comes from the innermost recognisable frame") {
  std::vector<Frame> backward{{"/ws/pretrain_gpt.py", 1, "<module>", ""},
                              {"/venv/torch/autograd/graph.py", 2, "_engine_run_backward", ""},
                              {"/ws/hook.py", 3, "token_grad_cov", ""}};
  CHECK(oom_phase(backward, matcher().tables().oom_phases) == "backward");
  std::vector<Frame> forward{{"/ws/megatron/core/pipeline_parallel/schedules.py", 1, "forward_step", ""},
                             {"/ws/megatron/core/transformer/attention.py", 2, "forward", ""}};
  CHECK(oom_phase(forward, matcher().tables().oom_phases) == "forward");
  std::vector<Frame> optimizer{{"/ws/megatron/training/training.py", 1, "train_step", ""},
                               {"/ws/megatron/core/optimizer/distrib_optimizer.py", 2, "step_with_ready_grads", ""}};
  CHECK(oom_phase(optimizer, matcher().tables().oom_phases) == "optimizer");
  CHECK(oom_phase({}, matcher().tables().oom_phases) == "unknown");
}

TEST_CASE("checks: world size product passes, fails and says what is missing") {
  RootCauseReport r;
  r.category = "shape";
  auto ok = evaluate(r, {{"world_size", "16"}, {"tensor_model_parallel_size", "4"}, {"pipeline_model_parallel_size", "2"},
                         {"context_parallel_size", "1"}, {"data_parallel_size", "2"}});
  REQUIRE(find(ok, "world_size_product"));
  CHECK(find(ok, "world_size_product")->status == "passed");
  CHECK(find(ok, "world_size_product")->detail == "WORLD_SIZE 16 = TP 4 x DP 2 x CP 1 x PP 2 = 16");
  auto bad = evaluate(r, {{"world_size", "24"}, {"tensor_model_parallel_size", "4"}, {"pipeline_model_parallel_size", "4"},
                          {"context_parallel_size", "1"}});
  CHECK(find(bad, "world_size_product")->status == "failed");
  auto unknown = evaluate(r, {});
  CHECK(find(unknown, "world_size_product")->status == "unknown");
  CHECK(find(unknown, "world_size_product")->detail.find("missing world_size") == 0);
}

TEST_CASE("checks: heads and batch divisibility use the error's own numbers when the dump is absent") {
  RootCauseReport r;
  r.category = "shape";
  r.rule = "megatron.heads-not-multiple-of-tp";
  r.fields = {{"heads", "30"}, {"tp", "4"}};
  auto out = evaluate(r, {});
  CHECK(find(out, "heads_divisible_by_tp")->status == "failed");
  CHECK(find(out, "heads_divisible_by_tp")->detail == "num_attention_heads 30 % TP 4 = 2");
  RootCauseReport b;
  b.category = "shape";
  b.fields = {{"global_batch", "100"}, {"micro_batch", "4"}, {"dp", "8"}};
  CHECK(find(evaluate(b, {}), "batch_divisible")->status == "failed");
}

TEST_CASE("checks: OOM headline puts the figures first") {
  RootCauseReport r;
  r.category = "oom";
  r.rule = "cuda.oom";
  r.evidence = "traceback";
  r.rank = 12;
  r.host = "node03";
  r.frames = {{"/ws/megatron/core/pipeline_parallel/schedules.py", 1, "backward_step", ""}};
  r.fields = {{"tried", "3.94 GiB"}, {"free", "1.21 GiB"}, {"total", "79.11 GiB"}, {"gpu", "4"},
              {"reserved_unallocated", "6.00 GiB"}};
  auto out = evaluate(r, {{"micro_batch_size", "4"}, {"seq_length", "8192"}, {"tensor_model_parallel_size", "2"},
                          {"pipeline_model_parallel_size", "4"}, {"context_parallel_size", "1"},
                          {"data_parallel_size", "16"}});
  CHECK(out.headline ==
        "OOM on rank 12 (node03, GPU 4) during backward: tried 3.94 GiB, 1.21 GiB free of 79.11 GiB; "
        "MBS 4, seq 8192, TP 2 PP 4 CP 1 DP 16");
  CHECK(out.facts.at("tried_to_allocate_bytes") == "4230542787");
  CHECK(find(out, "oom_fragmentation")->status == "failed");
}

TEST_CASE("checks: CUDA_DEVICE_MAX_CONNECTIONS follows the runbook rule") {
  RootCauseReport r;
  r.category = "oom";
  auto hopper_tp = evaluate(r, {{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"},
                                {"gpu_model", "H100"}, {"cuda_device_max_connections", "1"}});
  CHECK(find(hopper_tp, "cuda_device_max_connections")->status == "passed");
  auto fsdp_one = evaluate(r, {{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"},
                               {"use_torch_fsdp2", "True"}, {"cuda_device_max_connections", "1"}});
  CHECK(find(fsdp_one, "cuda_device_max_connections")->status == "failed");
  auto moe = evaluate(r, {{"tensor_model_parallel_size", "1"}, {"context_parallel_size", "1"},
                          {"overlap_moe_expert_parallel_comm", "True"}, {"cuda_device_max_connections", "1"}});
  CHECK(find(moe, "cuda_device_max_connections")->detail == "is 1, should be 32 (overlap_moe_expert_parallel_comm is on)");
  RootCauseReport asserted;
  asserted.category = "unknown";
  asserted.rule = "megatron.cuda-device-max-connections";
  asserted.rule_tags = {"cuda-device-max-connections"};
  auto a = evaluate(asserted, {{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"}, {"gpu_model", "H200"}});
  CHECK(find(a, "cuda_device_max_connections")->status == "failed");
  CHECK(find(a, "cuda_device_max_connections")->detail.find("export CUDA_DEVICE_MAX_CONNECTIONS=1") != std::string::npos);
}

TEST_CASE("checks: import work tree from the frames") {
  RootCauseReport r;
  r.category = "import";
  r.fields = {{"module", "wandb"}};
  r.frames = {{"/lustre/proj/megatron/pretrain_gpt.py", 525, "<module>", ""},
              {"/lustre/proj/megatron/megatron/training/arguments.py", 112, "parse", ""},
              {"/home/u/old/megatron/megatron/core/utils.py", 3, "f", ""}};
  auto out = evaluate(r, {});
  CHECK(find(out, "work_tree")->status == "failed");
  CHECK(out.facts.at("missing_module") == "wandb");
  CHECK(out.facts.at("import_site") == "/home/u/old/megatron/megatron/core/utils.py:3");
}
}
