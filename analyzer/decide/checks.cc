#include "decide/checks.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <utility>

#include "base/text_util.h"
#include "decide/classify.h"
#include "lint/cuda_connections_rule.h"
#include "match/rule_tags.h"
#include "model/fact_registry.h"

namespace megatriage {
namespace {

using Facts = std::map<std::string, std::string>;

std::optional<long long> as_int(const Facts& f, const std::string& key) {
  auto it = f.find(key);
  if (it == f.end()) return std::nullopt;
  std::string_view s = trim_spaces(it->second);
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool is_true(const Facts& f, const std::string& key) {
  auto it = f.find(key);
  return it != f.end() && parse_fact_bool(it->second).value_or(false);
}

std::string get(const Facts& f, const std::string& key) {
  auto it = f.find(key);
  return it == f.end() ? std::string() : it->second;
}

std::string gib(long long bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return buf;
}

// Where a user finds a missing configuration fact.
constexpr const char* kWhereConfig =
    "not in the logs read; Megatron prints it in the arguments dump on rank 0's stdout (.out)";

CheckResult check(std::string id, std::string text, CheckStatus status, std::string detail) {
  return CheckResult{std::move(id), std::move(text), status, std::move(detail), false};
}

// Fact, falling back to a value the rule captured from the error message itself.
std::optional<long long> fact_or_field(const RootCauseReport& r, const std::string& fact,
                                       const std::string& field) {
  if (auto v = as_int(r.facts, fact)) return v;
  return as_int(r.fields, field);
}

CheckResult world_size_product(const RootCauseReport& r) {
  const std::string text = "WORLD_SIZE = TP x DP x CP x PP";
  auto ws = fact_or_field(r, "world_size", "world_size");
  auto tp = as_int(r.facts, "tensor_model_parallel_size");
  auto pp = as_int(r.facts, "pipeline_model_parallel_size");
  auto cp = as_int(r.facts, "context_parallel_size");
  auto dp = as_int(r.facts, "data_parallel_size");
  if (has_tag(r.rule_tags, rule_tag::kWorldSizeDivisor)) {
    // `16`, `tensor model parallel size (8)` or `total_model_size (total_model_size=16)`:
    // the divisor is the last number printed.
    std::optional<long long> divisor;
    std::string d = get(r.fields, "divisor");
    auto end = d.find_last_of("0123456789");
    if (end != std::string::npos) {
      auto begin = d.find_last_not_of("0123456789", end);
      divisor = std::atoll(d.substr(begin == std::string::npos ? 0 : begin + 1, end).c_str());
    }
    if (ws && divisor)
      return check("world_size_product", text, CheckStatus::Failed,
                   "world size " + std::to_string(*ws) + " is not divisible by the model-parallel size " +
                       std::to_string(*divisor) + " (TP x PP x CP): change the node count or the parallel sizes");
  }
  if (ws && tp && pp && cp && dp) {
    long long product = *tp * *dp * *cp * *pp;
    std::string figures = "WORLD_SIZE " + std::to_string(*ws) + (product == *ws ? " = " : " != ") +
                          "TP " + std::to_string(*tp) + " x DP " + std::to_string(*dp) + " x CP " +
                          std::to_string(*cp) + " x PP " + std::to_string(*pp) + " = " + std::to_string(product);
    return check("world_size_product", text, product == *ws ? CheckStatus::Passed : CheckStatus::Failed, figures);
  }
  if (ws && tp && pp && cp) {
    long long model = *tp * *pp * *cp;
    if (model > 0 && *ws % model != 0)
      return check("world_size_product", text, CheckStatus::Failed,
                   "WORLD_SIZE " + std::to_string(*ws) + " is not divisible by TP x PP x CP = " + std::to_string(model));
    return check("world_size_product", text, CheckStatus::Passed,
                 "WORLD_SIZE " + std::to_string(*ws) + " = TP x PP x CP " + std::to_string(model) + " x DP " +
                     std::to_string(model > 0 ? *ws / model : 0));
  }
  std::string missing;
  for (const char* k : {"world_size", "tensor_model_parallel_size", "pipeline_model_parallel_size",
                        "context_parallel_size"})
    if (!r.facts.count(k)) missing += std::string(missing.empty() ? "" : ", ") + k;
  return check("world_size_product", text, CheckStatus::Unknown, "missing " + missing + ": " + kWhereConfig);
}

CheckResult heads_divisible(const RootCauseReport& r) {
  const std::string text = "num_attention_heads % TP == 0 (and num_query_groups % TP)";
  auto heads = fact_or_field(r, "num_attention_heads", "heads");
  auto tp = fact_or_field(r, "tensor_model_parallel_size", "tp");
  auto groups = fact_or_field(r, "num_query_groups", "groups");
  if (!heads && groups && tp && has_tag(r.rule_tags, rule_tag::kQueryGroupsVsTp))
    return check("heads_divisible_by_tp", text, CheckStatus::Failed,
                 "num_query_groups " + std::to_string(*groups) + " % TP " + std::to_string(*tp) + " = " +
                     std::to_string(*groups % *tp));
  if (!heads || !tp || *tp <= 0)
    return check("heads_divisible_by_tp", text, CheckStatus::Unknown,
                 std::string("missing ") + (!heads ? "num_attention_heads" : "tensor_model_parallel_size") +
                     ": " + kWhereConfig);
  std::string detail = "num_attention_heads " + std::to_string(*heads) + " % TP " + std::to_string(*tp) +
                       " = " + std::to_string(*heads % *tp);
  bool ok = *heads % *tp == 0;
  if (groups && *groups > 0) {
    detail += "; num_query_groups " + std::to_string(*groups) + " % TP = " + std::to_string(*groups % *tp);
    ok = ok && (*groups % *tp == 0 || *tp % *groups == 0);
  }
  return check("heads_divisible_by_tp", text, ok ? CheckStatus::Passed : CheckStatus::Failed, detail);
}

CheckResult batch_divisible(const RootCauseReport& r) {
  const std::string text = "global batch % (micro batch x DP) == 0";
  auto gbs = fact_or_field(r, "global_batch_size", "global_batch");
  auto mbs = fact_or_field(r, "micro_batch_size", "micro_batch");
  auto dp = fact_or_field(r, "data_parallel_size", "dp");
  if (!gbs || !mbs || !dp || *mbs <= 0 || *dp <= 0) {
    std::string missing = !gbs ? "global_batch_size" : !mbs ? "micro_batch_size" : "data_parallel_size";
    return check("batch_divisible", text, CheckStatus::Unknown, "missing " + missing + ": " + kWhereConfig);
  }
  long long unit = *mbs * *dp;
  return check("batch_divisible", text, *gbs % unit == 0 ? CheckStatus::Passed : CheckStatus::Failed,
               "global batch " + std::to_string(*gbs) + " % (MBS " + std::to_string(*mbs) + " x DP " +
                   std::to_string(*dp) + ") = " + std::to_string(*gbs % unit));
}

std::string parallel_figures(const Facts& f) {
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

std::string batch_figures(const Facts& f) {
  std::string s;
  if (auto v = as_int(f, "micro_batch_size")) s += "MBS " + std::to_string(*v);
  if (auto v = as_int(f, "global_batch_size")) s += std::string(s.empty() ? "" : ", ") + "GBS " + std::to_string(*v);
  if (auto v = as_int(f, "seq_length")) s += std::string(s.empty() ? "" : ", ") + "seq " + std::to_string(*v);
  return s;
}

void oom_facts_and_checks(RootCauseReport& r, const std::vector<OomPhaseEntry>& phases,
                          std::vector<CheckResult>& out) {
  Facts& f = r.facts;
  const std::optional<std::string> phase =
      r.evidence == Evidence::Traceback ? oom_phase(r.frames, phases) : std::nullopt;
  if (r.evidence == Evidence::Traceback) f["phase"] = phase.value_or("unknown");
  struct { const char* field; const char* fact; } sizes[] = {
      {"tried", "tried_to_allocate_bytes"}, {"total", "gpu_total_bytes"}, {"free", "gpu_free_bytes"},
      {"allocated", "allocated_by_pytorch_bytes"}, {"reserved_unallocated", "reserved_unallocated_bytes"}};
  for (const auto& s : sizes) {
    auto it = r.fields.find(s.field);
    if (it == r.fields.end()) continue;
    if (std::optional<long long> bytes = parse_size_bytes(it->second)) f[s.fact] = std::to_string(*bytes);
  }
  if (r.fields.count("gpu")) f["device"] = r.fields.at("gpu");
  const bool host_oom = has_tag(r.rule_tags, rule_tag::kHostOom);
  if (has_tag(r.rule_tags, rule_tag::kOomKillEvents) && r.fields.count("count")) f["oom_kill_events"] = r.fields.at("count");
  if (host_oom && !r.host.empty()) f["node"] = r.host;

  // The headline: figures first.
  std::string where;
  if (!r.host.empty()) where = r.host;
  if (f.count("device")) where += std::string(where.empty() ? "" : ", ") + "GPU " + f["device"];
  // An unknown rank is not said: the place (host, GPU) and the figures are.
  std::string h = host_oom ? "Host OOM" : "OOM";
  if (r.rank >= 0) h += " on rank " + std::to_string(r.rank);
  if (!where.empty()) h += " (" + where + ")";
  if (phase) h += " during " + *phase;
  std::string mem;
  if (auto t = as_int(f, "tried_to_allocate_bytes")) mem = "tried " + gib(*t);
  if (auto fr = as_int(f, "gpu_free_bytes")) {
    mem += std::string(mem.empty() ? "" : ", ") + gib(*fr) + " free";
    if (auto tot = as_int(f, "gpu_total_bytes")) mem += " of " + gib(*tot);
  }
  if (f.count("peak_allocated_mb")) mem += std::string(mem.empty() ? "" : ", ") + "peak allocated " + f["peak_allocated_mb"] + " MB";
  std::string cfg = batch_figures(f);
  std::string par = parallel_figures(f);
  if (!par.empty()) cfg += std::string(cfg.empty() ? "" : ", ") + par;
  if (!mem.empty() || !cfg.empty()) h += ": " + mem + (mem.empty() || cfg.empty() ? "" : "; ") + cfg;
  r.headline = h;

  std::string missing;
  for (const char* k : {"micro_batch_size", "seq_length", "tensor_model_parallel_size", "data_parallel_size", "peak_allocated_mb"})
    if (!f.count(k)) missing += std::string(missing.empty() ? "" : ", ") + k;
  out.push_back(check("oom_phase_and_sizes",
                      "Rank, phase, batch sizes, sequence length, parallelism and peak memory",
                      missing.empty() ? CheckStatus::Passed : CheckStatus::Unknown,
                      missing.empty() ? h : "missing " + missing + ": " + kWhereConfig));

  auto reserved = as_int(f, "reserved_unallocated_bytes");
  auto total = as_int(f, "gpu_total_bytes");
  if (reserved && total && *total > 0) {
    // Fragmentation: PyTorch holds memory it cannot hand out in the requested block size.
    bool large = *reserved > *total / 20 && *reserved > (1LL << 30);
    out.push_back(check("oom_fragmentation", "Reserved-but-unallocated memory (fragmentation)",
                        large ? CheckStatus::Failed : CheckStatus::Passed,
                        gib(*reserved) + " reserved but unallocated" +
                            (large ? ": set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" : ": not the problem")));
  }
}

CheckResult cuda_device_max_connections(const RootCauseReport& r, const std::vector<GpuGenerationEntry>& gpus) {
  const Facts& f = r.facts;
  const std::string text = "CUDA_DEVICE_MAX_CONNECTIONS fits the hardware and parallelism (runbook rule)";
  CudaConnectionsSetup setup;
  setup.gpu = gpu_generation(get(f, "compute_capability"), get(f, "gpu_model"), gpus);
  setup.tp = as_int(f, "tensor_model_parallel_size");
  setup.cp = as_int(f, "context_parallel_size");
  setup.fsdp = is_true(f, "use_torch_fsdp2") || is_true(f, "use_megatron_fsdp") || is_true(f, "use_custom_fsdp");
  setup.moe_overlap = is_true(f, "overlap_moe_expert_parallel_comm");
  const std::string gen(generation_name(setup.gpu));
  std::string value = get(f, "cuda_device_max_connections");
  const CudaConnectionsRequirement need = cuda_connections_requirement(setup);
  const std::string& required = need.required;
  const std::string& why = need.why;

  if (has_tag(r.rule_tags, rule_tag::kCudaDeviceMaxConnections)) {
    std::string fix = has_tag(r.rule_tags, rule_tag::kFsdp)
                          ? "do not export CUDA_DEVICE_MAX_CONNECTIONS=1 with FSDP: unset it (or set it > 1)"
                          : (setup.gpu == GpuGeneration::Blackwell ? "on Blackwell it is not needed; this assertion means the GPU was not recognised: check the build"
                                                : "export CUDA_DEVICE_MAX_CONNECTIONS=1 in the sbatch script before the launch (TP>1 or CP>1 on " +
                                                      (setup.gpu == GpuGeneration::Unknown ? std::string("pre-Blackwell GPUs") : gen) + ", no FSDP)");
    return check("cuda_device_max_connections", text, CheckStatus::Failed, "Megatron asserted on it: " + fix);
  }
  if (need.value == CudaConnectionsValue::Undecided)
    return check("cuda_device_max_connections", text, CheckStatus::Unknown,
                 std::string("missing tensor/context parallel sizes: ") + kWhereConfig);
  if (value.empty())
    return check("cuda_device_max_connections", text, CheckStatus::Unknown,
                 "should be " + required + " (" + why + "); its value is not in the logs: echo it in the batch script");
  bool ok = cuda_connections_value_fits(need.value, value);
  return check("cuda_device_max_connections", text, ok ? CheckStatus::Passed : CheckStatus::Failed,
               "is " + value + ", should be " + required + " (" + why + ")");
}

// Distinct source trees the frames come from (site-packages and frozen frames excluded).
std::set<std::string> frame_trees(const std::vector<Frame>& frames, bool& saw_venv, std::string& packages) {
  std::set<std::string> trees;
  for (const auto& fr : frames) {
    const std::string& p = fr.path;
    if (p.empty() || p[0] != '/') continue;
    auto sp = p.find("-packages/");
    if (p.find("/.venv/") != std::string::npos || p.find("/venv/") != std::string::npos) saw_venv = true;
    if (sp != std::string::npos) {
      if (packages.empty()) packages = p.substr(0, sp + 9);
      continue;
    }
    // The work tree is the directory that holds the `megatron` package (and pretrain_gpt.py).
    std::string tree = p.substr(0, p.rfind('/'));
    for (const char* pkg : {"/megatron/core/", "/megatron/training/", "/megatron/legacy/",
                            "/megatron/inference/", "/megatron/rl/", "/megatron/post_training/"}) {
      auto m = p.rfind(pkg);
      if (m != std::string::npos) {
        tree = p.substr(0, m);
        break;
      }
    }
    trees.insert(tree);
  }
  return trees;
}

void import_facts_and_checks(RootCauseReport& r, std::vector<CheckResult>& out) {
  Facts& f = r.facts;
  // The rule's field → the fact that names what was missing.
  static constexpr std::pair<const char*, const char*> kMissing[] = {
      {"module", "missing_module"}, {"name", "missing_name"}, {"library", "missing_library"},
      {"symbol", "missing_symbol"}};
  for (const auto& [field, fact] : kMissing)
    if (r.fields.count(field)) f[fact] = r.fields.at(field);
  if (!r.frames.empty()) f["import_site"] = r.frames.back().path + ":" + std::to_string(r.frames.back().line);
  bool venv = false;
  std::string packages;
  std::set<std::string> trees = frame_trees(r.frames, venv, packages);
  // The launched script (outermost source frame) names the work tree the job meant to use.
  std::string work_tree;
  for (const auto& fr : r.frames) {
    bool dummy = false;
    std::string ignored;
    auto t = frame_trees({fr}, dummy, ignored);
    if (!t.empty()) { work_tree = *t.begin(); break; }
  }
  if (!work_tree.empty()) f["work_tree"] = work_tree;
  f["venv_in_frames"] = venv ? "true" : "false";

  if (trees.empty())
    out.push_back(check("work_tree", "The frames and the launch point to the intended work tree", CheckStatus::Unknown,
                        "no source frames in the traceback"));
  else if (trees.size() > 1) {
    std::string others;
    for (const auto& t : trees)
      if (t != work_tree) others += (others.empty() ? "" : ", ") + t;
    out.push_back(check("work_tree", "The frames and the launch point to the intended work tree", CheckStatus::Failed,
                        "the script runs from " + work_tree + " but code is also imported from " + others +
                            ": `cd <MEGATRON_WORKTREE>` before the launch and remove the stale copy from PYTHONPATH"));
  } else {
    out.push_back(check("work_tree", "The frames and the launch point to the intended work tree", CheckStatus::Passed,
                        "all frames are under " + work_tree + ": confirm it is the work tree the job meant to run"));
  }
  if (venv)
    out.push_back(check("uv_sync", "`uv sync` was run: the venv has the module", CheckStatus::Failed,
                        "the interpreter runs from a venv" + (packages.empty() ? std::string() : " (" + packages + ")") +
                            " that lacks '" + get(f, "missing_module") + get(f, "missing_library") +
                            "': run `uv sync` with the extras that provide it"));
  else if (!packages.empty())
    out.push_back(check("uv_sync", "`uv sync` was run: the venv has the module", CheckStatus::Failed,
                        "packages come from " + packages + ", not the work tree's .venv: run `uv sync` and launch with `uv run python -m torch.distributed.run`"));
  else
    out.push_back(check("uv_sync", "`uv sync` was run: the venv has the module", CheckStatus::Unknown,
                        "no installed-package frame in the traceback shows which interpreter ran"));
  std::string path = get(r.fields, "path");
  if (!path.empty() && !work_tree.empty() && path.rfind(work_tree, 0) != 0)
    out.push_back(check("pythonpath", "No stale PYTHONPATH or installed copy shadows the work tree", CheckStatus::Failed,
                        "the module was imported from " + path + ", outside " + work_tree +
                            ": a stale PYTHONPATH entry or an installed copy shadows the work tree"));
  else
    out.push_back(check("pythonpath", "No stale PYTHONPATH or installed copy shadows the work tree", CheckStatus::Unknown,
                        "print PYTHONPATH in the batch script to see it in the logs"));
}

CheckResult same_command(const JobFacts& job) {
  const std::string text = "Every rank ran the same command";
  std::string differing, same;
  for (const auto& [key, values] : job.launch_variants) {
    if (values.size() > 1) {
      differing += (differing.empty() ? "" : "; ") + key + " differs:";
      for (const auto& [value, where] : values) differing += " " + value + " (" + where + ")";
    } else {
      same += (same.empty() ? "" : ", ") + key + "=" + values.begin()->first;
    }
  }
  if (!differing.empty()) return check("same_command_all_ranks", text, CheckStatus::Failed, differing);
  if (!same.empty())
    return check("same_command_all_ranks", text, CheckStatus::Passed, "every file that printed them agrees: " + same);
  return check("same_command_all_ranks", text, CheckStatus::Unknown,
               "no launch settings in the logs: echo MASTER_ADDR, MASTER_PORT and NNODES in the batch script");
}

void nccl_facts_and_checks(RootCauseReport& r, const JobFacts& job, const std::vector<TimelineEntry>& timeline,
                           const RuleMatcher& matcher, std::vector<CheckResult>& out) {
  Facts& f = r.facts;
  std::string peer = get(r.fields, "peer_host");
  if (peer.empty()) peer = get(r.fields, "peer");
  if (!peer.empty()) f["peer"] = peer + (r.fields.count("port") ? ":" + r.fields.at("port") : "");
  bool name_failure = false, address_in_use = false, hang = true;
  std::string joined;
  std::map<int, long long> last_completed;  // rank → lowest "last completed" work seen
  for (const auto& entry : timeline) {
    const Event& e = *entry.event;
    if (e.kind == EventKind::Traceback && event_role(e, matcher) != RuleRole::Symptom &&
        event_role(e, matcher) != RuleRole::Teardown)
      hang = false;
    if (e.text.find("Name or service not known") != std::string::npos ||
        e.text.find("Temporary failure in name resolution") != std::string::npos ||
        e.text.find("getaddrinfo") != std::string::npos)
      name_failure = true;
    std::optional<std::string> text;  // the matched text, rebuilt once and only when a field is read
    auto matched = [&]() -> const std::string& {
      if (!text) text = matched_text(e);
      return *text;
    };
    for (const auto& m : e.matches) {
      const std::vector<std::string>& tags = matcher.rules()[static_cast<std::size_t>(m.rule_index)].tags;
      if (has_tag(tags, rule_tag::kAddressInUse)) address_in_use = true;
      if (has_tag(tags, rule_tag::kStoreClientsJoined) && joined.empty()) {
        std::map<std::string, std::string> fields = matcher.fields(m, matched());
        if (fields.count("joined")) joined = fields.at("joined") + "/" + fields.at("expected");
      }
      if (e.who.rank >= 0 && matcher.has_group(m.rule_index, "last_completed")) {
        if (std::optional<std::string> done = matcher.field(m, matched(), "last_completed")) {
          long long v = std::atoll(done->c_str());
          auto it = last_completed.find(e.who.rank);
          if (it == last_completed.end() || v < it->second) last_completed[e.who.rank] = v;
        }
      }
    }
  }
  if (!joined.empty()) f["clients_joined"] = joined;
  if (address_in_use) f["address_in_use"] = "true";

  std::string addr = get(f, "master_addr");
  out.push_back(check("master_addr_resolves", "MASTER_ADDR resolves on every node",
                      name_failure ? CheckStatus::Failed : CheckStatus::Unknown,
                      name_failure ? "a name-resolution error was logged" + (addr.empty() ? std::string() : " (MASTER_ADDR=" + addr + ")")
                                   : "no resolution error in the logs; take MASTER_ADDR from `scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1`"));
  if (address_in_use)
    out.push_back(check("port_reachable", "The rendezvous port is free and reachable", CheckStatus::Failed,
                        "the port was already in use: another job on the node holds it; pick another MASTER_PORT"));
  else if (!peer.empty())
    out.push_back(check("port_reachable", "The rendezvous port is free and reachable", CheckStatus::Failed,
                        "could not connect to " + f["peer"] + ": the master was not listening there (wrong address/port, or it died first)"));
  else
    out.push_back(check("port_reachable", "The rendezvous port is free and reachable", CheckStatus::Unknown, "no connection error names a peer"));

  // Different MASTER_PORT / MASTER_ADDR echoed by different files means different commands.
  out.push_back(same_command(job));
  if (!joined.empty())
    out.push_back(check("allocation", "Every node of the allocation joined", CheckStatus::Failed,
                        joined + " clients joined the store: the missing node(s) never started, crashed early or used a different --master-addr/--master-port"));
  else
    out.push_back(check("allocation", "Every node of the allocation joined", CheckStatus::Unknown,
                        "compare sacct NodeList with the hosts that printed anything"));
  if (hang && has_tag(r.rule_tags, rule_tag::kHang)) {
    std::string laggards;
    if (last_completed.size() == 1) {
      laggards = "only rank " + std::to_string(last_completed.begin()->first) +
                 " reported its progress (last completed work " + std::to_string(last_completed.begin()->second) +
                 "): the ranks that printed nothing never reached that collective";
    } else if (!last_completed.empty()) {
      long long low = std::min_element(last_completed.begin(), last_completed.end(),
                                       [](auto& a, auto& b) { return a.second < b.second; })->second;
      std::vector<int> ranks;
      for (auto [rank, v] : last_completed)
        if (v == low) ranks.push_back(rank);
      laggards = "rank(s) " + compact_ranks(ranks) + " completed the fewest collectives (last completed work " +
                 std::to_string(low) + ")";
    }
    std::string op = get(r.fields, "op"), timeout = get(r.fields, "timeout_ms");
    r.headline = "Hang: " + (op.empty() ? std::string("a collective") : op) + " timed out" +
                 (timeout.empty() ? "" : " after " + timeout + " ms") +
                 (r.rank >= 0 ? " on rank " + std::to_string(r.rank) : "") + "; no rank crashed" +
                 (f.count("last_iteration") ? ", last iteration " + f["last_iteration"] : "");
    out.push_back(check("hang", "A hang: no rank crashed, a collective never completed", CheckStatus::Failed,
                        (laggards.empty() ? std::string("no rank printed its last completed work") : laggards) +
                            "; enable the flight recorder (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, TORCH_NCCL_DUMP_ON_TIMEOUT=1) to see which rank never joined"));
  }
}

}  // namespace

std::optional<long long> parse_size_bytes(const std::string& text) {
  std::string_view s = trim_spaces(text);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc()) return std::nullopt;
  std::string_view unit = trim_spaces(s.substr(static_cast<std::size_t>(p - s.data())));
  double scale = unit == "B" ? 1.0 : unit == "KiB" ? 1024.0 : unit == "MiB" ? 1048576.0
               : unit == "GiB" ? 1073741824.0 : unit == "TiB" ? 1099511627776.0 : -1;
  if (scale < 0) return std::nullopt;
  return static_cast<long long>(std::llround(v * scale));
}

std::optional<std::string> oom_phase(const std::vector<Frame>& frames, const std::vector<OomPhaseEntry>& phases) {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    for (const OomPhaseEntry& phase : phases) {
      const auto& fns = phase.functions;
      const bool named = std::find(fns.begin(), fns.end(), it->function) != fns.end() ||
                         std::any_of(phase.path_parts.begin(), phase.path_parts.end(), [&](const std::string& part) {
                           return it->path.find(part) != std::string::npos;
                         });
      if (named) return phase.phase;
    }
  }
  return std::nullopt;
}

JobFacts collect_job_facts(const std::vector<FileResult>& files, int rank) {
  JobFacts job;
  // Running maxima for the keys that merge by number; rendered once all files are seen.
  struct Peak {
    double any = -1, of_rank = -1;
    std::string any_value, any_where, rank_where;
  };
  std::map<std::string, Peak> peaks;               // MaxPerRank keys
  std::map<std::string, long long> int_maxima;     // Max keys
  for (const auto& fr : files) {
    for (const auto& fact : fr.facts) {
      const FactSpec spec = fact_spec(fact.key);
      // Per-process values and Python's None say nothing about the job.
      if (fact_value_unset(fact.value) || spec.across_files == FactMerge::PerProcess) continue;
      std::string where = fr.file.display_path + ":" + std::to_string(fact.line);
      switch (spec.across_files) {
        case FactMerge::Max: {
          long long v = std::atoll(fact.value.c_str());
          auto [it, inserted] = int_maxima.try_emplace(fact.key, -1);  // counts start at 0
          if (v > it->second) {
            it->second = v;
            job.where[fact.key] = where;
          }
          break;
        }
        case FactMerge::MaxPerRank: {
          double v = std::atof(fact.value.c_str());
          Peak& p = peaks[fact.key];
          if (v > p.any) { p.any = v; p.any_value = fact.value; p.any_where = where; }
          if (rank >= 0 && fact.rank == rank && v > p.of_rank) { p.of_rank = v; p.rank_where = where; }
          break;
        }
        case FactMerge::LaunchVariants:
          job.launch_variants[fact.key].emplace(fact.value, where);
          [[fallthrough]];  // the first value is the job's value too
        case FactMerge::First:
        case FactMerge::Latest:
        case FactMerge::PerProcess:
          if (!job.values.count(fact.key)) {
            job.values[fact.key] = fact.value;
            job.where[fact.key] = where;
          }
          break;
      }
    }
  }
  for (const auto& [key, v] : int_maxima)
    if (v >= 0) job.values[key] = std::to_string(v);
  for (const auto& [key, p] : peaks) {
    if (p.of_rank >= 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", p.of_rank);
      job.values[key] = buf;
      job.where[key] = p.rank_where;
    } else if (p.any >= 0) {
      job.values[key] = p.any_value;
      job.where[key] = p.any_where;
    }
  }
  return job;
}

void evaluate_checks(RootCauseReport& r, const Event& root, const JobFacts& job,
                     const std::vector<TimelineEntry>& timeline, const RuleMatcher& matcher) {
  (void)root;
  for (const auto& [k, v] : job.values) r.facts.emplace(k, v);
  std::vector<CheckResult> evaluated;
  if (r.category == Category::Oom) {
    oom_facts_and_checks(r, matcher.tables().oom_phases, evaluated);
  } else if (r.category == Category::Shape) {
    if (!r.frames.empty()) {
      const std::string& p = r.frames.back().path;
      r.facts["raised_in"] = p.find("megatron/training/arguments") != std::string::npos ? "megatron argument validation"
                             : p.find("/megatron/") != std::string::npos ? "megatron model code"
                             : p.find("-packages/torch/") != std::string::npos ? "pytorch"
                             : "user code";
      r.facts["raised_at"] = p + ":" + std::to_string(r.frames.back().line);
    }
    evaluated.push_back(world_size_product(r));
    evaluated.push_back(heads_divisible(r));
    evaluated.push_back(batch_divisible(r));
  } else if (r.category == Category::Import) {
    import_facts_and_checks(r, evaluated);
  } else if (r.category == Category::Nccl) {
    nccl_facts_and_checks(r, job, timeline, matcher, evaluated);
  }
  if (r.category != Category::Import && r.category != Category::Nccl) {
    // CUDA_DEVICE_MAX_CONNECTIONS matters for every training run; report it when decidable
    // or when Megatron asserted on it.
    CheckResult c = cuda_device_max_connections(r, matcher.tables().gpu_generations);
    if (c.status != CheckStatus::Unknown || r.category == Category::Oom || r.category == Category::Shape ||
        has_tag(r.rule_tags, rule_tag::kCudaDeviceMaxConnections))
      evaluated.push_back(std::move(c));
  }
  // Other headlines: decide/headline.cc, once the symptoms are known.
  // The rule's own advice (id `advice`, status unknown) follows the evaluated checks.
  evaluated.insert(evaluated.end(), r.checks.begin(), r.checks.end());
  r.checks = std::move(evaluated);
}

}  // namespace megatriage
