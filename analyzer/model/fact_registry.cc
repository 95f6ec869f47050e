// The table of known fact keys. Merge policies reproduce what the report has always shown:
// configuration keeps rank 0's first print, progress the latest line of a file and the furthest
// iteration of the job, memory peaks one per rank. The root cause's own facts (decide/checks.cc:
// OOM sizes and phase, the import's trees, the NCCL peer) are set once per report, never merged:
// they are here for their type, which the JSON report writes them with.
#include "model/fact_registry.h"

#include <algorithm>
#include <array>

namespace megatriage {
namespace {

using T = FactType;
using M = FactMerge;

// ASCII-sorted by key (checked below) for a binary search: keep_facts asks once per new fact.
constexpr std::array<FactSpec, 76> kFacts = {{
    {"address_in_use", T::Bool, M::First, M::First},
    {"allocated_by_pytorch_bytes", T::Int, M::First, M::First},
    {"args_dump_seen", T::Bool, M::First, M::First},
    {"bf16", T::Bool, M::First, M::First},
    {"clients_joined", T::Text, M::First, M::First},
    {"compute_capability", T::Text, M::First, M::First},
    {"context_parallel_size", T::Int, M::First, M::First},
    {"cuda_device_max_connections", T::Int, M::First, M::First},
    {"data_parallel_sharding_strategy", T::Text, M::First, M::First},
    {"data_parallel_size", T::Int, M::First, M::First},
    {"data_path", T::List, M::First, M::First},
    {"device", T::Int, M::First, M::First},
    {"distributed_timeout_minutes", T::Int, M::First, M::First},
    {"expert_model_parallel_size", T::Int, M::First, M::First},
    {"expert_tensor_parallel_size", T::Int, M::First, M::First},
    {"ffn_hidden_size", T::Int, M::First, M::First},
    {"fp16", T::Bool, M::First, M::First},
    {"global_batch_size", T::Int, M::First, M::First},
    {"gpu_free_bytes", T::Int, M::First, M::First},
    {"gpu_model", T::Text, M::First, M::First},
    {"gpu_total_bytes", T::Int, M::First, M::First},
    {"gpus_per_node", T::Int, M::First, M::First},
    {"hidden_size", T::Int, M::First, M::First},
    {"import_site", T::Text, M::First, M::First},
    // Progress: a file's last iteration line is its furthest; the job got as far as its
    // furthest file.
    {"last_iteration", T::Int, M::Latest, M::Max},
    {"lm_loss", T::Float, M::Latest, M::First},
    {"load", T::Text, M::First, M::First},
    {"local_rank", T::Int, M::First, M::PerProcess},
    // A trainer's logged progress dict (HF Trainer and its users): the latest epoch it printed.
    {"logged_progress", T::Text, M::Latest, M::First},
    {"master_addr", T::Text, M::First, M::LaunchVariants},
    {"master_port", T::Int, M::First, M::LaunchVariants},
    // Memory reports print per rank; the highest is the one that can explain an OOM.
    {"max_reserved_mb", T::Float, M::MaxPerRank, M::First},
    {"micro_batch_size", T::Int, M::First, M::First},
    {"missing_library", T::Text, M::First, M::First},
    {"missing_module", T::Text, M::First, M::First},
    {"missing_name", T::Text, M::First, M::First},
    {"missing_symbol", T::Text, M::First, M::First},
    {"nnodes", T::Int, M::First, M::LaunchVariants},
    {"node", T::Text, M::First, M::First},
    {"node_rank", T::Int, M::First, M::First},
    {"nodelist", T::Text, M::First, M::First},
    {"nproc_per_node", T::Int, M::First, M::LaunchVariants},
    {"num_attention_heads", T::Int, M::First, M::First},
    {"num_experts", T::Int, M::First, M::First},
    {"num_layers", T::Int, M::First, M::First},
    {"num_microbatches", T::Int, M::First, M::First},
    {"num_query_groups", T::Int, M::First, M::First},
    {"oom_kill_events", T::Int, M::First, M::First},
    {"overlap_moe_expert_parallel_comm", T::Bool, M::First, M::First},
    {"peak_allocated_mb", T::Float, M::MaxPerRank, M::MaxPerRank},
    {"peer", T::Text, M::First, M::First},
    {"phase", T::Text, M::First, M::First},
    {"pipeline_model_parallel_size", T::Int, M::First, M::First},
    {"raised_at", T::Text, M::First, M::First},
    {"raised_in", T::Text, M::First, M::First},
    {"rank", T::Int, M::First, M::PerProcess},
    {"recompute_granularity", T::Text, M::First, M::First},
    {"reserved_unallocated_bytes", T::Int, M::First, M::First},
    {"save", T::Text, M::First, M::First},
    {"seq_length", T::Int, M::First, M::First},
    {"sequence_parallel", T::Bool, M::First, M::First},
    {"tensor_model_parallel_size", T::Int, M::First, M::First},
    {"tensorboard_dir", T::Text, M::First, M::First},
    {"theoretical_total_mb", T::Float, M::First, M::First},
    {"train_iters", T::Int, M::First, M::First},
    {"train_iters_total", T::Int, M::Latest, M::First},
    {"tried_to_allocate_bytes", T::Int, M::First, M::First},
    {"use_custom_fsdp", T::Bool, M::First, M::First},
    {"use_distributed_optimizer", T::Bool, M::First, M::First},
    {"use_megatron_fsdp", T::Bool, M::First, M::First},
    {"use_torch_fsdp2", T::Bool, M::First, M::First},
    {"venv_in_frames", T::Bool, M::First, M::First},
    {"virtual_pipeline_model_parallel_size", T::Int, M::First, M::First},
    {"work_tree", T::Text, M::First, M::First},
    {"world_size", T::Int, M::First, M::First},
    // The launcher's WORLD_SIZE as echoed: one per node's command line.
    {"world_size_env", T::Int, M::First, M::LaunchVariants},
}};

constexpr bool sorted_by_key() {
  for (std::size_t i = 1; i < kFacts.size(); ++i)
    if (!(kFacts[i - 1].key < kFacts[i].key)) return false;
  return true;
}
static_assert(sorted_by_key(), "kFacts must be sorted by key, each key once");

}  // namespace

std::optional<FactSpec> find_fact(std::string_view key) {
  auto it = std::lower_bound(kFacts.begin(), kFacts.end(), key,
                             [](const FactSpec& s, std::string_view k) { return s.key < k; });
  if (it == kFacts.end() || it->key != key) return std::nullopt;
  return *it;
}

FactSpec fact_spec(std::string_view key) {
  if (auto spec = find_fact(key)) return *spec;
  return FactSpec{key, FactType::Text, FactMerge::First, FactMerge::First};
}

const FactSpec* fact_specs_begin() { return kFacts.data(); }
const FactSpec* fact_specs_end() { return kFacts.data() + kFacts.size(); }

bool fact_value_unset(std::string_view value) { return value == "None"; }

std::optional<bool> parse_fact_bool(std::string_view value) {
  if (value == "True" || value == "true" || value == "1") return true;
  if (value == "False" || value == "false" || value == "0") return false;
  return std::nullopt;
}

const char* fact_type_name(FactType t) {
  switch (t) {
    case FactType::Int: return "int";
    case FactType::Float: return "float";
    case FactType::Bool: return "bool";
    case FactType::Text: return "text";
    case FactType::List: return "list";
  }
  return "text";
}

const char* fact_merge_name(FactMerge m) {
  switch (m) {
    case FactMerge::First: return "first";
    case FactMerge::Latest: return "latest";
    case FactMerge::Max: return "max";
    case FactMerge::MaxPerRank: return "max-per-rank";
    case FactMerge::LaunchVariants: return "launch-variants";
    case FactMerge::PerProcess: return "per-process";
  }
  return "first";
}

}  // namespace megatriage
