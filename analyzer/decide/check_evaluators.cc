#include "decide/check_evaluators.h"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "decide/classify.h"
#include "decide/fact_values.h"
#include "lint/cuda_connections_rule.h"
#include "match/rule_matcher.h"
#include "match/rule_tags.h"

namespace megatriage {
namespace {

using fact_values::as_int;
using fact_values::Facts;
using fact_values::get;
using fact_values::gib;
using fact_values::is_true;

// Where a user finds a missing configuration fact: in Megatron's arguments dump when Megatron
// ran (its frames, its dump, a rule about its layout), else printed by the job itself.
constexpr const char* kWhereMegatronConfig =
    "not in the logs read; Megatron prints it in the arguments dump on rank 0's stdout (.out)";
constexpr const char* kWhereOwnConfig = "not in the logs read; print it at start-up (rank 0's stdout) to see it here";

bool megatron_ran(const RootCauseReport& r) {
  return r.facts.count("args_dump_seen") > 0 || has_tag(r.rule_tags, "parallel-layout") ||
         std::any_of(r.frames.begin(), r.frames.end(),
                     [](const Frame& f) { return f.path.find("/megatron/") != std::string::npos; });
}

const char* where_config(const RootCauseReport& r) { return megatron_ran(r) ? kWhereMegatronConfig : kWhereOwnConfig; }

using Outcome = std::optional<CheckOutcome>;

Outcome outcome(CheckStatus status, std::string detail) { return CheckOutcome{status, std::move(detail)}; }

std::string join_missing(std::initializer_list<const char*> keys, const Facts& f) {
  std::string missing;
  for (const char* k : keys)
    if (!f.count(k)) missing += std::string(missing.empty() ? "" : ", ") + k;
  return missing;
}

// Fact, falling back to a value the rule captured from the error message itself.
std::optional<long long> fact_or_field(const RootCauseReport& r, const std::string& fact, const std::string& field) {
  if (auto v = as_int(r.facts, fact)) return v;
  return as_int(r.fields, field);
}

// ---- OOM (GPU) ----

Outcome oom_phase_and_sizes(const CheckScene& s) {
  const RootCauseReport& r = s.root;
  const Facts& f = r.facts;
  const std::string missing =
      join_missing({"micro_batch_size", "seq_length", "tensor_model_parallel_size", "data_parallel_size",
                    "peak_allocated_mb"}, f);
  if (!missing.empty()) return outcome(CheckStatus::Unknown, "missing " + missing + ": " + where_config(r));
  // Everything the runbook asks to record is known: the record itself is the detail.
  std::string figures = r.rank >= 0 ? "rank " + std::to_string(r.rank) : std::string("rank unknown");
  if (f.count("phase")) figures += ", " + get(f, "phase");
  figures += "; " + batch_figures(f) + "; " + parallel_figures(f) + "; peak allocated " + get(f, "peak_allocated_mb") + " MB";
  return outcome(CheckStatus::Passed, figures);
}

// One allocation larger than the whole GPU is not a memory-tuning problem: no setting makes it
// fit, a size is wrong (a batch, a sequence length, a broadcast that materialised).
Outcome oom_allocation_size(const CheckScene& s) {
  const Facts& f = s.root.facts;
  auto tried = as_int(f, "tried_to_allocate_bytes");
  auto total = as_int(f, "gpu_total_bytes");
  if (!tried || !total || *total <= 0) return std::nullopt;
  if (*tried > *total)
    return outcome(CheckStatus::Failed,
                   "tried " + gib(*tried) + " in one allocation on a GPU of " + gib(*total) +
                       ": no memory setting makes it fit; look for a tensor far larger than meant (a batch or "
                       "sequence size, an unintended broadcast or outer product)");
  std::string detail = "tried " + gib(*tried) + " of " + gib(*total);
  if (auto free = as_int(f, "gpu_free_bytes")) detail += " (" + gib(*free) + " free)";
  return outcome(CheckStatus::Passed, detail + ": an ordinary shortage; what was already allocated is what to reduce");
}

Outcome oom_fragmentation(const CheckScene& s) {
  const Facts& f = s.root.facts;
  auto reserved = as_int(f, "reserved_unallocated_bytes");
  auto total = as_int(f, "gpu_total_bytes");
  if (!reserved || !total || *total <= 0) return std::nullopt;
  // Fragmentation: PyTorch holds memory it cannot hand out in the requested block size.
  bool large = *reserved > *total / 20 && *reserved > (1LL << 30);
  return outcome(large ? CheckStatus::Failed : CheckStatus::Passed,
                 gib(*reserved) + " reserved but unallocated" +
                     (large ? ": set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" : ": not the problem"));
}

Outcome cuda_device_max_connections(const CheckScene& s) {
  const RootCauseReport& r = s.root;
  const Facts& f = r.facts;
  CudaConnectionsSetup setup;
  setup.gpu = gpu_generation(get(f, "compute_capability"), get(f, "gpu_model"), s.gpus);
  setup.tp = as_int(f, "tensor_model_parallel_size");
  setup.cp = as_int(f, "context_parallel_size");
  setup.fsdp = is_true(f, "use_torch_fsdp2") || is_true(f, "use_megatron_fsdp") || is_true(f, "use_custom_fsdp");
  setup.moe_overlap = is_true(f, "overlap_moe_expert_parallel_comm");
  const std::string gen(generation_name(setup.gpu));
  std::string value = get(f, "cuda_device_max_connections");
  const CudaConnectionsRequirement need = cuda_connections_requirement(setup);

  if (has_tag(r.rule_tags, rule_tag::kCudaDeviceMaxConnections)) {
    std::string fix =
        has_tag(r.rule_tags, rule_tag::kFsdp)
            ? "do not export CUDA_DEVICE_MAX_CONNECTIONS=1 with FSDP: unset it (or set it > 1)"
            : (setup.gpu == GpuGeneration::Blackwell
                   ? "on Blackwell it is not needed; this assertion means the GPU was not recognised: check the build"
                   : "export CUDA_DEVICE_MAX_CONNECTIONS=1 in the sbatch script before the launch (TP>1 or CP>1 on " +
                         (setup.gpu == GpuGeneration::Unknown ? std::string("pre-Blackwell GPUs") : gen) +
                         ", no FSDP)");
    return outcome(CheckStatus::Failed, "Megatron asserted on it: " + fix);
  }
  if (need.value == CudaConnectionsValue::Undecided)
    return outcome(CheckStatus::Unknown, std::string("missing tensor/context parallel sizes: ") + where_config(r));
  if (value.empty())
    return outcome(CheckStatus::Unknown, "should be " + need.required + " (" + need.why +
                                             "); its value is not in the logs: echo it in the batch script");
  bool ok = cuda_connections_value_fits(need.value, value);
  return outcome(ok ? CheckStatus::Passed : CheckStatus::Failed,
                 "is " + value + ", should be " + need.required + " (" + need.why + ")");
}

// ---- shape: Megatron's parallel layout ----

// `16`, `tensor model parallel size (8)` or `total_model_size (total_model_size=16)`: the last
// number printed.
std::optional<long long> last_number(const std::string& text) {
  auto end = text.find_last_of("0123456789");
  if (end == std::string::npos) return std::nullopt;
  auto before = text.find_last_not_of("0123456789", end);
  std::size_t begin = before == std::string::npos ? 0 : before + 1;
  return std::atoll(text.substr(begin, end - begin + 1).c_str());
}

Outcome world_size_product(const CheckScene& s) {
  const RootCauseReport& r = s.root;
  auto ws = fact_or_field(r, "world_size", "world_size");
  auto tp = as_int(r.facts, "tensor_model_parallel_size");
  auto pp = as_int(r.facts, "pipeline_model_parallel_size");
  auto cp = as_int(r.facts, "context_parallel_size");
  auto dp = as_int(r.facts, "data_parallel_size");
  if (has_tag(r.rule_tags, rule_tag::kWorldSizeDivisor)) {
    std::optional<long long> divisor = last_number(get(r.fields, "divisor"));
    if (ws && divisor)
      return outcome(CheckStatus::Failed, "world size " + std::to_string(*ws) +
                                              " is not divisible by the model-parallel size " +
                                              std::to_string(*divisor) +
                                              " (TP x PP x CP): change the node count or the parallel sizes");
  }
  if (ws && tp && pp && cp && dp) {
    long long product = *tp * *dp * *cp * *pp;
    std::string figures = "WORLD_SIZE " + std::to_string(*ws) + (product == *ws ? " = " : " != ") + "TP " +
                          std::to_string(*tp) + " x DP " + std::to_string(*dp) + " x CP " + std::to_string(*cp) +
                          " x PP " + std::to_string(*pp) + " = " + std::to_string(product);
    return outcome(product == *ws ? CheckStatus::Passed : CheckStatus::Failed, figures);
  }
  if (ws && tp && pp && cp) {
    long long model = *tp * *pp * *cp;
    if (model > 0 && *ws % model != 0)
      return outcome(CheckStatus::Failed, "WORLD_SIZE " + std::to_string(*ws) +
                                              " is not divisible by TP x PP x CP = " + std::to_string(model));
    return outcome(CheckStatus::Passed, "WORLD_SIZE " + std::to_string(*ws) + " = TP x PP x CP " +
                                            std::to_string(model) + " x DP " +
                                            std::to_string(model > 0 ? *ws / model : 0));
  }
  std::string missing;
  for (const char* k : {"world_size", "tensor_model_parallel_size", "pipeline_model_parallel_size",
                        "context_parallel_size"})
    if (!r.facts.count(k) && !(std::string_view(k) == "world_size" && ws))
      missing += std::string(missing.empty() ? "" : ", ") + k;
  return outcome(CheckStatus::Unknown, "missing " + missing + ": " + where_config(r));
}

Outcome heads_divisible_by_tp(const CheckScene& s) {
  const RootCauseReport& r = s.root;
  auto heads = fact_or_field(r, "num_attention_heads", "heads");
  auto tp = fact_or_field(r, "tensor_model_parallel_size", "tp");
  auto groups = fact_or_field(r, "num_query_groups", "groups");
  if (!heads && groups && tp && *tp > 0 && has_tag(r.rule_tags, rule_tag::kQueryGroupsVsTp))
    return outcome(CheckStatus::Failed, "num_query_groups " + std::to_string(*groups) + " % TP " +
                                            std::to_string(*tp) + " = " + std::to_string(*groups % *tp));
  if (!heads || !tp || *tp <= 0)
    return outcome(CheckStatus::Unknown,
                   std::string("missing ") + (!heads ? "num_attention_heads" : "tensor_model_parallel_size") + ": " +
                       where_config(r));
  std::string detail = "num_attention_heads " + std::to_string(*heads) + " % TP " + std::to_string(*tp) + " = " +
                       std::to_string(*heads % *tp);
  bool ok = *heads % *tp == 0;
  if (groups && *groups > 0) {
    detail += "; num_query_groups " + std::to_string(*groups) + " % TP = " + std::to_string(*groups % *tp);
    ok = ok && (*groups % *tp == 0 || *tp % *groups == 0);
  }
  return outcome(ok ? CheckStatus::Passed : CheckStatus::Failed, detail);
}

Outcome batch_divisible(const CheckScene& s) {
  const RootCauseReport& r = s.root;
  auto gbs = fact_or_field(r, "global_batch_size", "global_batch");
  auto mbs = fact_or_field(r, "micro_batch_size", "micro_batch");
  auto dp = fact_or_field(r, "data_parallel_size", "dp");
  if (!gbs || !mbs || !dp || *mbs <= 0 || *dp <= 0) {
    std::string missing = !gbs ? "global_batch_size" : !mbs ? "micro_batch_size" : "data_parallel_size";
    return outcome(CheckStatus::Unknown, "missing " + missing + ": " + where_config(r));
  }
  long long unit = *mbs * *dp;
  return outcome(*gbs % unit == 0 ? CheckStatus::Passed : CheckStatus::Failed,
                 "global batch " + std::to_string(*gbs) + " % (MBS " + std::to_string(*mbs) + " x DP " +
                     std::to_string(*dp) + ") = " + std::to_string(*gbs % unit));
}

// ---- shape: the tensors themselves ----

// The whole numbers of a shape text: `256x96`, `[2, 4096, -1]`, `torch.Size([4096, 640])`.
std::vector<long long> shape_numbers(const std::string& text) {
  std::vector<long long> out;
  for (std::size_t i = 0; i < text.size();) {
    const bool negative = text[i] == '-' && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9';
    if (!negative && (text[i] < '0' || text[i] > '9')) {
      ++i;
      continue;
    }
    std::size_t j = negative ? i + 1 : i;
    long long v = 0;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9' && v < (1LL << 50)) v = v * 10 + (text[j++] - '0');
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;  // absurdly long: capped
    out.push_back(negative ? -v : v);
    i = j;
  }
  return out;
}

Outcome shape_operands(const CheckScene& s) {
  const Facts& fl = s.root.fields;
  if (fl.count("mat1") && fl.count("mat2")) {
    // torch prints mat1 as (rows x inner) and mat2 as (inner x cols); for nn.Linear mat2 is
    // the weight transposed, so its first size is the layer's input features.
    const auto a = shape_numbers(fl.at("mat1")), b = shape_numbers(fl.at("mat2"));
    if (a.size() == 2 && b.size() == 2)
      return outcome(CheckStatus::Failed,
                     "mat1 " + fl.at("mat1") + " x mat2 " + fl.at("mat2") + ": the inner sizes " +
                         std::to_string(a[1]) + " and " + std::to_string(b[0]) +
                         " differ; in a Linear layer mat2 is the weight, so the layer takes " + std::to_string(b[0]) +
                         " input features and was given " + std::to_string(a[1]));
  }
  if (fl.count("size_a") && fl.count("size_b") && fl.count("dim"))
    return outcome(CheckStatus::Failed, "tensor a has " + fl.at("size_a") + " and tensor b " + fl.at("size_b") +
                                            " at dimension " + fl.at("dim") +
                                            "; neither is 1, so they cannot broadcast");
  if (fl.count("shape") && fl.count("size")) {
    const auto dims = shape_numbers(fl.at("shape"));
    const auto size = as_int(fl, "size");
    long long known = 1;
    bool inferred = false;
    for (long long d : dims) {
      if (d == -1) inferred = true;
      else known *= d;
    }
    if (size && !dims.empty() && known > 0)
      return outcome(CheckStatus::Failed,
                     inferred ? "the tensor has " + std::to_string(*size) + " elements, not a multiple of " +
                                    std::to_string(known) + " (the product of the view's other sizes " +
                                    fl.at("shape") + ")"
                              : "the view " + fl.at("shape") + " holds " + std::to_string(known) +
                                    " elements, the tensor has " + std::to_string(*size));
  }
  if (fl.count("expected") && fl.count("got"))
    return outcome(CheckStatus::Failed, "batch2's first two sizes should be " + fl.at("expected") + ", are " +
                                            fl.at("got"));
  // A checkpoint against the model, in the words of load_state_dict, DCP and Megatron's
  // dist_checkpointing.
  for (const auto& [saved, now] : {std::pair<const char*, const char*>{"checkpoint_shape", "model_shape"},
                                   {"saved", "current"}, {"loaded", "expected_global"}}) {
    if (!fl.count(saved) || !fl.count(now)) continue;
    std::string detail = get(fl, "param") + (fl.count("param") ? ": " : "") + "the checkpoint has " + fl.at(saved) +
                         ", the model " + fl.at(now);
    const auto a = shape_numbers(fl.at(saved)), b = shape_numbers(fl.at(now));
    if (a.size() == b.size()) {
      std::string differ;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i])
          differ += (differ.empty() ? "" : ", ") + std::string("dimension ") + std::to_string(i) + " " +
                    std::to_string(a[i]) + " against " + std::to_string(b[i]);
      if (!differ.empty()) detail += " (" + differ + ")";
    }
    return outcome(CheckStatus::Failed, detail);
  }
  return std::nullopt;
}

// The model sizes the logs print that a shape's numbers can be compared with.
constexpr const char* kModelSizes[] = {"hidden_size",     "ffn_hidden_size",  "num_attention_heads",
                                       "num_query_groups", "seq_length",      "micro_batch_size",
                                       "global_batch_size", "num_layers",     "num_experts"};

// Which of the message's numbers the job's configuration explains: a number no configured
// size gives is where the odd tensor came from.
Outcome shape_config(const CheckScene& s) {
  const RootCauseReport& r = s.root;
  std::vector<long long> numbers;
  for (const char* field : {"mat1", "mat2", "size_a", "size_b", "shape", "size", "expected", "got",
                            "checkpoint_shape", "model_shape", "saved", "current", "loaded", "expected_global"}) {
    auto it = r.fields.find(field);
    if (it == r.fields.end()) continue;
    for (long long v : shape_numbers(it->second))
      if (v > 1 && std::find(numbers.begin(), numbers.end(), v) == numbers.end()) numbers.push_back(v);
  }
  if (numbers.empty()) return std::nullopt;
  // Where the tensors were used: the innermost frame outside installed packages, else the raise.
  std::string where = get(r.facts, "raised_at");
  for (auto it = r.frames.rbegin(); it != r.frames.rend(); ++it) {
    if (it->path.find("-packages/") != std::string::npos || it->path.empty() || it->path[0] != '/') continue;
    where = it->path + ":" + std::to_string(it->line);
    break;
  }
  where = where.empty() ? std::string() : " (at " + where + ")";
  std::string all;
  for (long long v : numbers) all += (all.empty() ? "" : ", ") + std::to_string(v);
  std::string explained, unexplained;
  bool any_config = false;
  for (long long v : numbers) {
    std::string names;
    for (const char* key : kModelSizes) {
      auto size = as_int(r.facts, key);
      if (!size) continue;
      any_config = true;
      if (*size == v) names += std::string(names.empty() ? "" : " and ") + key;
    }
    if (!names.empty()) explained += (explained.empty() ? "" : ", ") + std::to_string(v) + " = " + names;
    else unexplained += (unexplained.empty() ? "" : ", ") + std::to_string(v);
  }
  if (!any_config)
    return outcome(CheckStatus::Unknown, "the logs print no model sizes (hidden size, sequence length, batch, "
                                         "vocabulary) to compare " + all + " with" + where);
  if (explained.empty())
    return outcome(CheckStatus::Unknown, "no configured size matches " + unexplained +
                                             ": the tensors come from the data, a checkpoint or a layer built "
                                             "with other sizes" + where);
  return outcome(CheckStatus::Unknown,
                 "in the logs' configuration " + explained +
                     (unexplained.empty() ? std::string()
                                          : "; " + unexplained + " matches no configured size: that tensor is "
                                                                 "the odd one") +
                     where);
}

// ---- import ----

Outcome work_tree(const CheckScene& s) {
  if (s.import == nullptr) return std::nullopt;
  const ImportEvidence& e = *s.import;
  if (e.trees.empty()) return outcome(CheckStatus::Unknown, "no source frames in the traceback");
  if (e.trees.size() > 1) {
    std::string others;
    for (const auto& t : e.trees)
      if (t != e.work_tree) others += (others.empty() ? "" : ", ") + t;
    return outcome(CheckStatus::Failed, "the script runs from " + e.work_tree + " but code is also imported from " +
                                            others +
                                            ": `cd <MEGATRON_WORKTREE>` before the launch and remove the stale copy "
                                            "from PYTHONPATH");
  }
  return outcome(CheckStatus::Passed, "every source frame is under " + e.work_tree);
}

Outcome uv_sync(const CheckScene& s) {
  if (s.import == nullptr) return std::nullopt;
  const ImportEvidence& e = *s.import;
  const Facts& f = s.root.facts;
  if (e.venv)
    return outcome(CheckStatus::Failed, "the interpreter runs from a venv" +
                                            (e.packages.empty() ? std::string() : " (" + e.packages + ")") +
                                            " that lacks '" + get(f, "missing_module") + get(f, "missing_library") +
                                            "': run `uv sync` with the extras that provide it");
  if (!e.packages.empty())
    return outcome(CheckStatus::Failed, "packages come from " + e.packages +
                                            ", not the work tree's .venv: run `uv sync` and launch with `uv run "
                                            "python -m torch.distributed.run`");
  return outcome(CheckStatus::Unknown,
                 "no installed-package frame in the traceback shows which interpreter ran; run `uv sync` in the work "
                 "tree before submitting, so `.venv` exists on storage every node sees");
}

Outcome pythonpath(const CheckScene& s) {
  if (s.import == nullptr) return std::nullopt;
  std::string path = get(s.root.fields, "path");
  const std::string& tree = s.import->work_tree;
  if (!path.empty() && !tree.empty() && path.rfind(tree, 0) != 0)
    return outcome(CheckStatus::Failed, "the module was imported from " + path + ", outside " + tree +
                                            ": a stale PYTHONPATH entry or an installed copy shadows the work tree");
  return outcome(CheckStatus::Unknown, "print PYTHONPATH in the batch script to see it in the logs");
}

// ---- NCCL ----

Outcome master_addr_resolves(const CheckScene& s) {
  if (s.nccl == nullptr) return std::nullopt;
  std::string addr = get(s.root.facts, "master_addr");
  if (s.nccl->name_failure)
    return outcome(CheckStatus::Failed, "a name-resolution error was logged" +
                                            (addr.empty() ? std::string() : " (MASTER_ADDR=" + addr + ")"));
  return outcome(CheckStatus::Unknown, "no resolution error in the logs; take MASTER_ADDR from `scontrol show "
                                       "hostnames \"$SLURM_JOB_NODELIST\" | head -n1`");
}

Outcome port_reachable(const CheckScene& s) {
  if (s.nccl == nullptr) return std::nullopt;
  if (s.nccl->address_in_use)
    return outcome(CheckStatus::Failed,
                   "the port was already in use: another job on the node holds it; pick another MASTER_PORT");
  std::string peer = get(s.root.facts, "peer");
  if (!peer.empty())
    return outcome(CheckStatus::Failed, "could not connect to " + peer +
                                            ": the master was not listening there (wrong address/port, or it died "
                                            "first)");
  return outcome(CheckStatus::Unknown, "no connection error names a peer");
}

Outcome same_command_all_ranks(const CheckScene& s) {
  std::string differing, same;
  for (const auto& [key, values] : s.job.launch_variants) {
    if (values.size() > 1) {
      differing += (differing.empty() ? "" : "; ") + key + " differs:";
      for (const auto& [value, where] : values) differing += " " + value + " (" + where + ")";
    } else {
      same += (same.empty() ? "" : ", ") + key + "=" + values.begin()->first;
    }
  }
  if (!differing.empty()) return outcome(CheckStatus::Failed, differing);
  if (!same.empty()) return outcome(CheckStatus::Passed, "every file that printed them agrees: " + same);
  return outcome(CheckStatus::Unknown,
                 "no launch settings in the logs: echo MASTER_ADDR, MASTER_PORT and NNODES in the batch script");
}

Outcome allocation(const CheckScene& s) {
  if (s.nccl == nullptr) return std::nullopt;
  if (!s.nccl->joined.empty())
    return outcome(CheckStatus::Failed, s.nccl->joined +
                                            " clients joined the store: the missing node(s) never started, crashed "
                                            "early or used a different --master-addr/--master-port");
  return outcome(CheckStatus::Unknown, "compare sacct NodeList with the hosts that printed anything");
}

Outcome hang(const CheckScene& s) {
  if (s.nccl == nullptr || !s.nccl->hang || !has_tag(s.root.rule_tags, rule_tag::kHang)) return std::nullopt;
  const std::map<int, long long>& done = s.nccl->last_completed;
  std::string laggards;
  if (done.size() == 1) {
    laggards = "only rank " + std::to_string(done.begin()->first) + " reported its progress (last completed work " +
               std::to_string(done.begin()->second) +
               "): the ranks that printed nothing never reached that collective";
  } else if (!done.empty()) {
    long long low = std::min_element(done.begin(), done.end(), [](auto& a, auto& b) { return a.second < b.second; })
                        ->second;
    std::vector<int> ranks;
    for (auto [rank, v] : done)
      if (v == low) ranks.push_back(rank);
    laggards = "rank(s) " + compact_ranks(ranks) + " completed the fewest collectives (last completed work " +
               std::to_string(low) + ")";
  }
  return outcome(CheckStatus::Failed,
                 (laggards.empty() ? std::string("no rank printed its last completed work") : laggards) +
                     "; enable the flight recorder (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, "
                     "TORCH_NCCL_DUMP_ON_TIMEOUT=1) to see which rank never joined");
}

// ---- data-only evaluators ----

// A fact, else a field the rule captured: the values a table's text can name.
std::optional<std::string> value_of(const RootCauseReport& r, const std::string& name) {
  if (auto it = r.facts.find(name); it != r.facts.end()) return it->second;
  if (auto it = r.fields.find(name); it != r.fields.end()) return it->second;
  return std::nullopt;
}

// `{name}` filled from the facts and fields; nullopt when a name has no value.
std::optional<std::string> fill_all(const std::string& text, const RootCauseReport& r) {
  // The placeholder syntax of fill_placeholders: `{` [A-Za-z0-9_]+ `}`; other braces are text.
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  std::map<std::string, std::string> values;
  for (std::size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    std::size_t end = open + 1;
    while (end < text.size() && name_char(text[end])) ++end;
    if (end == open + 1 || end >= text.size() || text[end] != '}') continue;
    const std::string name = text.substr(open + 1, end - open - 1);
    std::optional<std::string> v = value_of(r, name);
    if (!v) return std::nullopt;
    values.emplace(name, *v);
  }
  return fill_placeholders(text, values);
}

Outcome from_template(const RunbookCheckEntry& e, const CheckScene& s) {
  if (std::optional<std::string> detail = fill_all(e.detail, s.root)) return outcome(e.status, *detail);
  if (!e.has_otherwise) return std::nullopt;
  if (std::optional<std::string> detail = fill_all(e.otherwise_detail, s.root))
    return outcome(e.otherwise_status, *detail);
  return std::nullopt;
}

Outcome divisible(const RunbookCheckEntry& e, const CheckScene& s) {
  const RootCauseReport& r = s.root;
  std::string missing;
  auto number = [&](const std::string& key) -> std::optional<long long> {
    std::optional<std::string> v = value_of(r, key);
    Facts one;
    if (v) one[key] = *v;
    std::optional<long long> n = as_int(one, key);
    if (!n) missing += (missing.empty() ? "" : ", ") + key;
    return n;
  };
  std::optional<long long> dividend = number(e.dividend);
  long long product = e.divisor_factor;
  std::string divisor_text = e.divisor_factor > 1 ? std::to_string(e.divisor_factor) : std::string();
  for (const std::string& key : e.divisors) {
    std::optional<long long> d = number(key);
    if (d) {
      product *= *d;
      divisor_text += (divisor_text.empty() ? "" : " x ") + key + " " + std::to_string(*d);
    }
  }
  if (!missing.empty()) return outcome(CheckStatus::Unknown, "missing " + missing + ": " + where_config(r));
  if (product <= 0) return outcome(CheckStatus::Unknown, "the divisor " + divisor_text + " is not positive");
  const bool several = e.divisors.size() > 1 || e.divisor_factor > 1;
  return outcome(*dividend % product == 0 ? CheckStatus::Passed : CheckStatus::Failed,
                 e.dividend + " " + std::to_string(*dividend) + " % " + (several ? "(" : "") + divisor_text +
                     (several ? ")" : "") + " = " + std::to_string(*dividend % product));
}

using Builtin = Outcome (*)(const CheckScene&);

constexpr std::pair<std::string_view, Builtin> kBuiltins[] = {
    {"oom_phase_and_sizes", oom_phase_and_sizes},
    {"oom_allocation_size", oom_allocation_size},
    {"oom_fragmentation", oom_fragmentation},
    {"cuda_device_max_connections", cuda_device_max_connections},
    {"world_size_product", world_size_product},
    {"heads_divisible_by_tp", heads_divisible_by_tp},
    {"batch_divisible", batch_divisible},
    {"shape_operands", shape_operands},
    {"shape_config", shape_config},
    {"work_tree", work_tree},
    {"uv_sync", uv_sync},
    {"pythonpath", pythonpath},
    {"master_addr_resolves", master_addr_resolves},
    {"port_reachable", port_reachable},
    {"same_command_all_ranks", same_command_all_ranks},
    {"allocation", allocation},
    {"hang", hang},
};

}  // namespace

std::string parallel_figures(const std::map<std::string, std::string>& f) {
  std::string s;
  auto add = [&](const char* label, const char* key) {
    if (auto v = as_int(f, key)) s += std::string(s.empty() ? "" : " ") + label + " " + std::to_string(*v);
  };
  add("TP", "tensor_model_parallel_size");
  add("PP", "pipeline_model_parallel_size");
  add("CP", "context_parallel_size");
  add("DP", "data_parallel_size");
  return s;
}

std::string batch_figures(const std::map<std::string, std::string>& f) {
  std::string s;
  if (auto v = as_int(f, "micro_batch_size")) s += "MBS " + std::to_string(*v);
  if (auto v = as_int(f, "global_batch_size")) s += std::string(s.empty() ? "" : ", ") + "GBS " + std::to_string(*v);
  if (auto v = as_int(f, "seq_length")) s += std::string(s.empty() ? "" : ", ") + "seq " + std::to_string(*v);
  return s;
}

bool implements_evaluator(std::string_view name) {
  return std::any_of(std::begin(kBuiltins), std::end(kBuiltins), [&](const auto& b) { return b.first == name; });
}

std::optional<CheckOutcome> evaluate_check(const RunbookCheckEntry& entry, const CheckScene& scene) {
  if (entry.evaluate == kTemplateEvaluator) return from_template(entry, scene);
  if (entry.evaluate == kDivisibleEvaluator) return divisible(entry, scene);
  for (const auto& [name, fn] : kBuiltins)
    if (name == entry.evaluate) return fn(scene);
  return std::nullopt;  // the loader accepts only known names; a hand-built entry may not
}

}  // namespace megatriage
