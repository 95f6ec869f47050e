#include <doctest/doctest.h>

#include <set>

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
  CHECK(!parse_size_bytes("lots"));
  CHECK(!parse_size_bytes("3 GB"));
}

TEST_CASE("checks: OOM phase comes from the innermost recognisable frame") {
  std::vector<Frame> backward{{"/ws/pretrain_gpt.py", 1, "<module>", ""},
                              {"/venv/torch/autograd/graph.py", 2, "_engine_run_backward", ""},
                              {"/ws/hook.py", 3, "token_grad_cov", ""}};
  CHECK(oom_phase(backward, matcher().tables().oom_phases) == std::optional<std::string>("backward"));
  std::vector<Frame> forward{{"/ws/megatron/core/pipeline_parallel/schedules.py", 1, "forward_step", ""},
                             {"/ws/megatron/core/transformer/attention.py", 2, "forward", ""}};
  CHECK(oom_phase(forward, matcher().tables().oom_phases) == std::optional<std::string>("forward"));
  std::vector<Frame> optimizer{{"/ws/megatron/training/training.py", 1, "train_step", ""},
                               {"/ws/megatron/core/optimizer/distrib_optimizer.py", 2, "step_with_ready_grads", ""}};
  CHECK(oom_phase(optimizer, matcher().tables().oom_phases) == std::optional<std::string>("optimizer"));
  CHECK_FALSE(oom_phase({}, matcher().tables().oom_phases));
}

TEST_CASE("checks: world size product passes, fails and says what is missing") {
  RootCauseReport r;
  r.category = Category::Shape;
  r.rule_tags = {"parallel-layout"};  // a Megatron layout error: the check shows even undecided
  auto ok = evaluate(r, {{"world_size", "16"}, {"tensor_model_parallel_size", "4"}, {"pipeline_model_parallel_size", "2"},
                         {"context_parallel_size", "1"}, {"data_parallel_size", "2"}});
  REQUIRE(find(ok, "world_size_product"));
  CHECK(find(ok, "world_size_product")->status == CheckStatus::Passed);
  CHECK(find(ok, "world_size_product")->detail == "WORLD_SIZE 16 = TP 4 x DP 2 x CP 1 x PP 2 = 16");
  auto bad = evaluate(r, {{"world_size", "24"}, {"tensor_model_parallel_size", "4"}, {"pipeline_model_parallel_size", "4"},
                          {"context_parallel_size", "1"}});
  CHECK(find(bad, "world_size_product")->status == CheckStatus::Failed);
  auto unknown = evaluate(r, {});
  CHECK(find(unknown, "world_size_product")->status == CheckStatus::Unknown);
  CHECK(find(unknown, "world_size_product")->detail.find("missing world_size") == 0);
}

TEST_CASE("checks: heads and batch divisibility use the error's own numbers when the dump is absent") {
  RootCauseReport r;
  r.category = Category::Shape;
  r.rule = "megatron.heads-not-multiple-of-tp";
  r.fields = {{"heads", "30"}, {"tp", "4"}};
  auto out = evaluate(r, {});
  CHECK(find(out, "heads_divisible_by_tp")->status == CheckStatus::Failed);
  CHECK(find(out, "heads_divisible_by_tp")->detail == "num_attention_heads 30 % TP 4 = 2");
  RootCauseReport b;
  b.category = Category::Shape;
  b.fields = {{"global_batch", "100"}, {"micro_batch", "4"}, {"dp", "8"}};
  CHECK(find(evaluate(b, {}), "batch_divisible")->status == CheckStatus::Failed);
}

TEST_CASE("checks: OOM headline puts the figures first") {
  RootCauseReport r;
  r.category = Category::Oom;
  r.rule = "cuda.oom";
  r.evidence = Evidence::Traceback;
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
  CHECK(find(out, "oom_fragmentation")->status == CheckStatus::Failed);
}

TEST_CASE("checks: CUDA_DEVICE_MAX_CONNECTIONS follows the runbook rule") {
  RootCauseReport r;
  r.category = Category::Oom;
  auto hopper_tp = evaluate(r, {{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"},
                                {"gpu_model", "H100"}, {"cuda_device_max_connections", "1"}});
  CHECK(find(hopper_tp, "cuda_device_max_connections")->status == CheckStatus::Passed);
  auto fsdp_one = evaluate(r, {{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"},
                               {"use_torch_fsdp2", "True"}, {"cuda_device_max_connections", "1"}});
  CHECK(find(fsdp_one, "cuda_device_max_connections")->status == CheckStatus::Failed);
  auto moe = evaluate(r, {{"tensor_model_parallel_size", "1"}, {"context_parallel_size", "1"},
                          {"overlap_moe_expert_parallel_comm", "True"}, {"cuda_device_max_connections", "1"}});
  CHECK(find(moe, "cuda_device_max_connections")->detail == "is 1, should be 32 (overlap_moe_expert_parallel_comm is on)");
  RootCauseReport asserted;
  asserted.category = Category::Unknown;
  asserted.rule = "megatron.cuda-device-max-connections";
  asserted.rule_tags = {"cuda-device-max-connections"};
  auto a = evaluate(asserted, {{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"}, {"gpu_model", "H200"}});
  CHECK(find(a, "cuda_device_max_connections")->status == CheckStatus::Failed);
  CHECK(find(a, "cuda_device_max_connections")->detail.find("export CUDA_DEVICE_MAX_CONNECTIONS=1") != std::string::npos);
}

TEST_CASE("checks: import work tree from the frames") {
  RootCauseReport r;
  r.category = Category::Import;
  r.fields = {{"module", "wandb"}};
  r.frames = {{"/lustre/proj/megatron/pretrain_gpt.py", 525, "<module>", ""},
              {"/lustre/proj/megatron/megatron/training/arguments.py", 112, "parse", ""},
              {"/home/u/old/megatron/megatron/core/utils.py", 3, "f", ""}};
  auto out = evaluate(r, {});
  CHECK(find(out, "work_tree")->status == CheckStatus::Failed);
  CHECK(out.facts.at("missing_module") == "wandb");
  CHECK(out.facts.at("import_site") == "/home/u/old/megatron/megatron/core/utils.py:3");
}

TEST_CASE("checks: job facts merge across files as the fact registry says") {
  auto file = [](const char* path, std::vector<Fact> facts) {
    FileResult r;
    r.file.display_path = path;
    r.facts = std::move(facts);
    return r;
  };
  std::vector<FileResult> files{
      file("a.out", {{"micro_batch_size", "4", 10, 0}, {"last_iteration", "120", 50, 0},
                     {"peak_allocated_mb", "900.5", 60, 0}, {"master_port", "29500", 3, 0},
                     {"rank", "0", 1, 0}, {"seq_length", "None", 2, 0}}),
      file("b.out", {{"micro_batch_size", "8", 11, 1}, {"last_iteration", "130", 51, 1},
                     {"peak_allocated_mb", "700.25", 61, 1}, {"master_port", "29510", 3, 1}}),
  };
  SUBCASE("first, max, launch variants, per process, None") {
    JobFacts job = collect_job_facts(files, -1);
    CHECK(job.values.at("micro_batch_size") == "4");
    CHECK(job.where.at("micro_batch_size") == "a.out:10");
    CHECK(job.values.at("last_iteration") == "130");
    CHECK(job.where.at("last_iteration") == "b.out:51");
    CHECK(job.values.at("master_port") == "29500");
    REQUIRE(job.launch_variants.at("master_port").size() == 2);
    CHECK(job.launch_variants.at("master_port").at("29510") == "b.out:3");
    CHECK_FALSE(job.values.count("rank"));
    CHECK_FALSE(job.values.count("seq_length"));
    CHECK(job.values.at("peak_allocated_mb") == "900.5");  // no root rank: the highest, as printed
    CHECK(job.where.at("peak_allocated_mb") == "a.out:60");
  }
  SUBCASE("max per rank: the root's rank's own peak") {
    JobFacts job = collect_job_facts(files, 1);
    CHECK(job.values.at("peak_allocated_mb") == "700.25");
    CHECK(job.where.at("peak_allocated_mb") == "b.out:61");
  }
}

TEST_CASE("checks: CUDA_DEVICE_MAX_CONNECTIONS decides on the requirement, not on its wording") {
  RootCauseReport r;
  r.category = Category::Oom;
  const auto status = [&](std::map<std::string, std::string> facts) {
    return find(evaluate(r, std::move(facts)), "cuda_device_max_connections")->status;
  };
  SUBCASE("FSDP: anything but 1") {
    CHECK(status({{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"},
                  {"use_megatron_fsdp", "true"}, {"cuda_device_max_connections", "8"}}) == CheckStatus::Passed);
  }
  SUBCASE("Blackwell or TP=CP=1: not needed, any value passes") {
    CHECK(status({{"tensor_model_parallel_size", "4"}, {"context_parallel_size", "1"},
                  {"compute_capability", "10.0"}, {"cuda_device_max_connections", "1"}}) == CheckStatus::Passed);
    CHECK(status({{"tensor_model_parallel_size", "1"}, {"context_parallel_size", "1"},
                  {"cuda_device_max_connections", "4"}}) == CheckStatus::Passed);
  }
  SUBCASE("TP>1 on an unknown generation: 1") {
    CHECK(status({{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"},
                  {"cuda_device_max_connections", "1"}}) == CheckStatus::Passed);
    CHECK(status({{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"},
                  {"cuda_device_max_connections", "4"}}) == CheckStatus::Failed);
  }
  SUBCASE("MoE overlap: exactly 32") {
    CHECK(status({{"tensor_model_parallel_size", "1"}, {"context_parallel_size", "1"},
                  {"overlap_moe_expert_parallel_comm", "True"}, {"cuda_device_max_connections", "32"}}) ==
          CheckStatus::Passed);
  }
  SUBCASE("no parallel sizes: undecided (shown for a Megatron job, whose dump would say)") {
    CHECK(status({{"cuda_device_max_connections", "1"}, {"args_dump_seen", "1"}}) == CheckStatus::Unknown);
  }
}

bool has_check(const RootCauseReport& r, const std::string& id) { return find(r, id) != nullptr; }

TEST_CASE("checks: a host OOM gets host-memory checks, not GPU ones") {
  RootCauseReport r;
  r.category = Category::Oom;
  r.rule = "host.dataloader-killed";
  r.rule_tags = {"host-oom", "sigkill"};
  r.evidence = Evidence::Traceback;
  r.rank = 1;
  r.fields = {{"worker_pid", "980"}};
  r.frames = {{"/venv/lib/python3.12/site-packages/torch/utils/data/dataloader.py", 1310, "_try_get_data", ""}};
  auto out = evaluate(r, {{"tensor_model_parallel_size", "2"}, {"context_parallel_size", "1"}, {"gpu_model", "H100"},
                          {"cuda_device_max_connections", "1"}});
  for (const char* gpu : {"oom_phase_and_sizes", "oom_allocation_size", "oom_fragmentation", "cuda_device_max_connections"})
    CHECK_MESSAGE(!has_check(out, gpu), gpu);
  REQUIRE(has_check(out, "host_memory_request"));
  CHECK(find(out, "host_memory_request")->detail.find("MaxRSS") != std::string::npos);
  REQUIRE(has_check(out, "oom_killer_confirmed"));  // a SIGKILL alone does not name the OOM killer
  REQUIRE(has_check(out, "dataloader_workers"));
  CHECK(find(out, "dataloader_workers")->status == CheckStatus::Failed);
  CHECK(find(out, "dataloader_workers")->detail.find("worker 980 was killed") != std::string::npos);
  REQUIRE(has_check(out, "node_free_memory"));
  CHECK(find(out, "node_free_memory")->detail.find("<node>") != std::string::npos);  // no host known

  RootCauseReport cgroup;
  cgroup.category = Category::Oom;
  cgroup.rule = "host.oom-kill";
  cgroup.rule_tags = {"host-oom", "oom-kill-events"};
  cgroup.host = "node2";
  cgroup.fields = {{"count", "1"}, {"step", "15.0"}};
  auto c = evaluate(cgroup, {});
  CHECK_FALSE(has_check(c, "oom_killer_confirmed"));  // slurmstepd said so itself
  CHECK(find(c, "node_free_memory")->detail.find("scontrol show node node2") != std::string::npos);
  CHECK(find(c, "dataloader_workers")->status == CheckStatus::Unknown);
  CHECK_FALSE(has_check(c, "oom_phase_and_sizes"));
}

TEST_CASE("checks: a plain PyTorch matmul error gets the shapes, not Megatron's layout rows") {
  RootCauseReport r;
  r.category = Category::Shape;
  r.rule = "torch.mat-shapes";
  r.evidence = Evidence::Traceback;
  r.fields = {{"mat1", "256x96"}, {"mat2", "64x64"}};
  r.frames = {{"/ws/train.py", 40, "forward", ""},
              {"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py", 114, "forward", ""}};
  auto out = evaluate(r, {{"world_size", "4"}, {"data_parallel_size", "4"}});
  for (const char* megatron : {"world_size_product", "heads_divisible_by_tp", "batch_divisible", "cuda_device_max_connections"})
    CHECK_MESSAGE(!has_check(out, megatron), megatron);
  REQUIRE(has_check(out, "shape_operands"));
  CHECK(find(out, "shape_operands")->status == CheckStatus::Failed);
  CHECK(find(out, "shape_operands")->detail.find("inner sizes 96 and 64") != std::string::npos);
  REQUIRE(has_check(out, "shape_config"));
  CHECK(find(out, "shape_config")->detail.find("/ws/train.py:40") != std::string::npos);  // the user's frame

  // The same error inside Megatron, with its arguments dump: the layout rows are back, decided.
  r.frames.push_back({"/ws/megatron/core/tensor_parallel/layers.py", 700, "forward", ""});
  auto m = evaluate(r, {{"world_size", "4"}, {"tensor_model_parallel_size", "2"}, {"pipeline_model_parallel_size", "1"},
                        {"context_parallel_size", "1"}, {"data_parallel_size", "2"}, {"hidden_size", "64"},
                        {"args_dump_seen", "1"}});
  CHECK(find(m, "world_size_product")->status == CheckStatus::Passed);
  CHECK(find(m, "shape_config")->detail.find("64 = hidden_size") != std::string::npos);
  CHECK(find(m, "shape_config")->detail.find("96 matches no configured size") != std::string::npos);
}

TEST_CASE("checks: every id is unique, advice numbered as shown") {
  RootCauseReport r;
  r.category = Category::Oom;
  r.checks = {advice_check("one", ""), advice_check("two", ""), advice_check("three", "")};
  auto out = evaluate(r, {});
  std::set<std::string> ids;
  for (const auto& c : out.checks) CHECK_MESSAGE(ids.insert(c.id).second, c.id);
  CHECK(has_check(out, "advice.1"));
  CHECK(find(out, "advice.3")->text == "three");
  CHECK_FALSE(has_check(out, "advice"));
}
}
