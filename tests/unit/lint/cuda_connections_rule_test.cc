// cuda_connections_rule: the runbook's CUDA_DEVICE_MAX_CONNECTIONS rule as one table of cases
// (GPU generation x TP/CP x FSDP x MoE overlap), and the two users of the rule, the checks stage
// and `megatriage lint`, agreeing with it.
#include "lint/cuda_connections_rule.h"

#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "decide/checks.h"
#include "lint/gpu_generation.h"
#include "lint/lint.h"
#include "support/repo_rules.h"

namespace megatriage {
namespace {

using V = CudaConnectionsValue;
using G = GpuGeneration;

struct Case {
  G gpu;
  std::optional<long long> tp, cp;
  bool fsdp, moe_overlap;
  V value;
  const char* required;
  const char* why;
};

const Case kCases[] = {
    {G::Hopper, 2, 1, false, false, V::One, "1", "TP>1 or CP>1 without FSDP on hopper"},
    {G::Ampere, 1, 2, false, false, V::One, "1", "TP>1 or CP>1 without FSDP on ampere"},
    {G::Older, 4, 1, false, false, V::One, "1", "TP>1 or CP>1 without FSDP on older"},
    {G::Unknown, 2, 1, false, false, V::One, "1 on Hopper/Ampere",
     "TP>1 or CP>1 without FSDP; GPU generation unknown"},
    {G::Blackwell, 2, 2, false, false, V::Unset, "unset (not needed)", "Blackwell GPUs"},
    {G::Blackwell, std::nullopt, std::nullopt, false, false, V::Unset, "unset (not needed)", "Blackwell GPUs"},
    {G::Hopper, 1, 1, false, false, V::Unset, "unset (not needed)", "TP=1 and CP=1"},
    {G::Hopper, 2, 1, true, false, V::NotOne, "not 1 (unset or > 1)", "FSDP (Torch-FSDP2 / Megatron-FSDP) is on"},
    {G::Blackwell, 1, 1, true, false, V::NotOne, "not 1 (unset or > 1)", "FSDP (Torch-FSDP2 / Megatron-FSDP) is on"},
    {G::Hopper, 2, 1, false, true, V::ThirtyTwo, "32", "overlap_moe_expert_parallel_comm is on"},
    {G::Blackwell, 1, 1, false, true, V::ThirtyTwo, "32", "overlap_moe_expert_parallel_comm is on"},
    {G::Ampere, 2, 1, true, true, V::NotOne, "not 1 (unset or > 1)", "FSDP (Torch-FSDP2 / Megatron-FSDP) is on"},
    {G::Hopper, std::nullopt, std::nullopt, false, false, V::Undecided, "", ""},
    {G::Hopper, 1, std::nullopt, false, false, V::Undecided, "", ""},
};

CudaConnectionsSetup setup_of(const Case& c) {
  CudaConnectionsSetup s;
  s.gpu = c.gpu;
  s.tp = c.tp;
  s.cp = c.cp;
  s.fsdp = c.fsdp;
  s.moe_overlap = c.moe_overlap;
  return s;
}

// The facts the logs would give for a case, with the exported value.
std::map<std::string, std::string> facts_of(const Case& c, const std::string& value) {
  std::map<std::string, std::string> f{{"cuda_device_max_connections", value}};
  if (c.gpu == G::Hopper) f["gpu_model"] = "NVIDIA H100 80GB HBM3";
  if (c.gpu == G::Ampere) f["gpu_model"] = "NVIDIA A100-SXM4-80GB";
  if (c.gpu == G::Blackwell) f["gpu_model"] = "NVIDIA B200";
  if (c.gpu == G::Older) f["compute_capability"] = "7.0";
  if (c.tp) f["tensor_model_parallel_size"] = std::to_string(*c.tp);
  if (c.cp) f["context_parallel_size"] = std::to_string(*c.cp);
  if (c.fsdp) f["use_torch_fsdp2"] = "True";
  if (c.moe_overlap) f["overlap_moe_expert_parallel_comm"] = "True";
  return f;
}

// `partition` names the GPUs (`gpu-h100`) or not (`batch`).
std::vector<LintFinding> cdmc_findings(const std::string& partition, bool fsdp, bool moe_overlap,
                                       const std::string& value) {
  std::string script = "#!/bin/bash\n#SBATCH --partition=" + partition + "\nexport CUDA_DEVICE_MAX_CONNECTIONS=" + value +
                       "\nsrun python pretrain_gpt.py --tensor-model-parallel-size 2" +
                       (fsdp ? " --use-torch-fsdp2" : "") +
                       (moe_overlap ? " --overlap-moe-expert-parallel-comm" : "") + "\n";
  LintOptions options;
  options.check_filesystem = false;
  options.texts = &test::repo_matcher().tables().lint_rules;
  options.gpus = &test::repo_matcher().tables().gpu_generations;
  std::vector<LintFinding> out;
  for (LintFinding& f : lint_script(script, options))
    if (f.rule == "lint.cuda-device-max-connections") out.push_back(std::move(f));
  return out;
}

}  // namespace

TEST_SUITE("cuda_connections_rule") {

TEST_CASE("cuda_connections_rule: the runbook's table of cases") {
  for (const Case& c : kCases) {
    CAPTURE(generation_name(c.gpu));
    CAPTURE(c.why);
    const CudaConnectionsRequirement need = cuda_connections_requirement(setup_of(c));
    CHECK(need.value == c.value);
    CHECK(need.required == c.required);
    CHECK(need.why == c.why);
  }
}

TEST_CASE("cuda_connections_rule: which exported values fit each requirement") {
  CHECK(cuda_connections_value_fits(V::One, "1"));
  CHECK_FALSE(cuda_connections_value_fits(V::One, "32"));
  CHECK_FALSE(cuda_connections_value_fits(V::NotOne, "1"));
  CHECK(cuda_connections_value_fits(V::NotOne, "8"));
  CHECK(cuda_connections_value_fits(V::ThirtyTwo, "32"));
  CHECK_FALSE(cuda_connections_value_fits(V::ThirtyTwo, "1"));
  CHECK(cuda_connections_value_fits(V::Unset, "1"));
  CHECK(cuda_connections_value_fits(V::Undecided, "1"));
}

TEST_CASE("cuda_connections_rule: the checks stage reports what the rule decides") {
  for (const Case& c : kCases) {
    for (const std::string value : {"1", "32"}) {
      CAPTURE(c.why);
      CAPTURE(value);
      RootCauseReport r;
      r.category = Category::Oom;  // a Megatron job's OOM lists the check even when undecidable
      JobFacts job;
      job.values = facts_of(c, value);
      job.values["args_dump_seen"] = "1";
      evaluate_checks(r, Event{}, job, {}, test::repo_matcher());
      const CheckResult* got = nullptr;
      for (const auto& k : r.checks)
        if (k.id == "cuda_device_max_connections") got = &k;
      REQUIRE(got != nullptr);
      if (c.value == V::Undecided) {
        CHECK(got->status == CheckStatus::Unknown);
      } else {
        CHECK(got->status == (cuda_connections_value_fits(c.value, value) ? CheckStatus::Passed : CheckStatus::Failed));
        CHECK(got->detail == "is " + value + ", should be " + c.required + " (" + c.why + ")");
      }
    }
  }
}

TEST_CASE("cuda_connections_rule: lint judges the value by the script's TP, FSDP, MoE overlap and GPUs") {
  struct LintCase {
    const char* partition;
    bool fsdp, moe_overlap;
    const char* value;
    const char* expect;  // "": no finding; else a piece of the finding's why
    bool note;           // the finding is a note (what the script does not show)
  };
  // Every script runs TP 2.
  const LintCase cases[] = {
      {"gpu-h100", false, false, "1", "", false},  // the runbook's own recommendation
      {"gpu-h100", false, false, "32", "needs 1 there", false},
      {"batch", false, false, "1", "", false},  // 1 is right unless Blackwell: nothing to say
      {"batch", false, false, "8", "Lint cannot tell", true},
      {"gb200", false, false, "1", "no effect", true},
      {"batch", false, true, "32", "", false},
      {"batch", false, true, "1", "wants 32", false},
      {"gpu-h100", true, false, "1", "must not run with 1", false},
      {"gpu-h100", true, false, "2", "", false},
      {"batch", true, true, "32", "", false},
      {"batch", true, true, "1", "must not run with 1", false},
  };
  for (const LintCase& c : cases) {
    CAPTURE(c.partition);
    CAPTURE(c.fsdp);
    CAPTURE(c.moe_overlap);
    CAPTURE(c.value);
    auto found = cdmc_findings(c.partition, c.fsdp, c.moe_overlap, c.value);
    if (*c.expect == '\0') {
      CHECK(found.empty());
    } else {
      REQUIRE(found.size() == 1);
      CHECK(found[0].line == 3);
      CHECK(found[0].note == c.note);
      CHECK_MESSAGE(found[0].why.find(c.expect) != std::string::npos, found[0].why);
    }
  }
}

TEST_CASE("cuda_connections_rule: GPU generation from compute capability, else the model name") {
  // The repository's rules/gpus.json.
  auto gen = [](std::string_view cc, std::string_view model) {
    return gpu_generation(cc, model, test::repo_matcher().tables().gpu_generations);
  };
  CHECK(gen("9.0", "") == G::Hopper);
  CHECK(gen("8.6", "") == G::Ampere);
  CHECK(gen("10.0", "") == G::Blackwell);
  CHECK(gen("12.0", "") == G::Blackwell);
  CHECK(gen("7.5", "") == G::Older);
  CHECK(gen("9.0", "NVIDIA B200") == G::Hopper);  // the capability wins
  CHECK(gen("", "NVIDIA H100 80GB HBM3") == G::Hopper);
  CHECK(gen("", "NVIDIA GH200 480GB") == G::Hopper);
  CHECK(gen("", "NVIDIA GB200") == G::Blackwell);
  CHECK(gen("", "NVIDIA A10G") == G::Ampere);
  CHECK(gen("", "Tesla V100-SXM2-32GB") == G::Unknown);
  CHECK(gen("", "") == G::Unknown);
  CHECK(gpu_generation("9.0", "NVIDIA H100", {}) == G::Unknown);  // no table, no knowledge
  CHECK(generation_name(G::Blackwell) == "blackwell");
  CHECK(generation_name(G::Unknown).empty());
}

}  // TEST_SUITE
}  // namespace megatriage
