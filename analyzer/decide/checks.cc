#include "decide/checks.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <utility>

#include "base/text_util.h"
#include "decide/check_evaluators.h"
#include "decide/classify.h"
#include "decide/fact_values.h"
#include "decide/runbook_checks.h"
#include "match/rule_tags.h"
#include "model/fact_registry.h"

namespace megatriage {
namespace {

using Facts = std::map<std::string, std::string>;

using fact_values::as_int;
using fact_values::get;
using fact_values::gib;

// The OOM's own facts (phase, sizes, device, node) and its headline.
void oom_facts(RootCauseReport& r, const std::vector<OomPhaseEntry>& phases) {
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

// The import's own facts (what was missing, where, the work tree) and the frames' trees.
ImportEvidence import_facts(RootCauseReport& r) {
  Facts& f = r.facts;
  // The rule's field → the fact that names what was missing.
  static constexpr std::pair<const char*, const char*> kMissing[] = {
      {"module", "missing_module"}, {"name", "missing_name"}, {"library", "missing_library"},
      {"symbol", "missing_symbol"}};
  for (const auto& [field, fact] : kMissing)
    if (r.fields.count(field)) f[fact] = r.fields.at(field);
  if (!r.frames.empty()) f["import_site"] = r.frames.back().path + ":" + std::to_string(r.frames.back().line);
  ImportEvidence e;
  e.trees = frame_trees(r.frames, e.venv, e.packages);
  // The launched script (outermost source frame) names the work tree the job meant to use.
  for (const auto& fr : r.frames) {
    bool dummy = false;
    std::string ignored;
    auto t = frame_trees({fr}, dummy, ignored);
    if (!t.empty()) { e.work_tree = *t.begin(); break; }
  }
  if (!e.work_tree.empty()) f["work_tree"] = e.work_tree;
  f["venv_in_frames"] = e.venv ? "true" : "false";
  return e;
}

// The NCCL root's own facts (peer, clients joined, port in use), what its checks read from
// the whole timeline, and a hang's headline.
NcclEvidence nccl_facts(RootCauseReport& r, const std::vector<TimelineEntry>& timeline, const RuleMatcher& matcher) {
  Facts& f = r.facts;
  std::string peer = get(r.fields, "peer_host");
  if (peer.empty()) peer = get(r.fields, "peer");
  if (!peer.empty()) f["peer"] = peer + (r.fields.count("port") ? ":" + r.fields.at("port") : "");
  NcclEvidence ev;
  for (const auto& entry : timeline) {
    const Event& e = *entry.event;
    if (e.kind == EventKind::Traceback && event_role(e, matcher) != RuleRole::Symptom &&
        event_role(e, matcher) != RuleRole::Teardown)
      ev.hang = false;
    if (e.text.find("Name or service not known") != std::string::npos ||
        e.text.find("Temporary failure in name resolution") != std::string::npos ||
        e.text.find("getaddrinfo") != std::string::npos)
      ev.name_failure = true;
    std::optional<std::string> text;  // the matched text, rebuilt once and only when a field is read
    auto matched = [&]() -> const std::string& {
      if (!text) text = matched_text(e);
      return *text;
    };
    for (const auto& m : e.matches) {
      const std::vector<std::string>& tags = matcher.rules()[static_cast<std::size_t>(m.rule_index)].tags;
      if (has_tag(tags, rule_tag::kAddressInUse)) ev.address_in_use = true;
      if (has_tag(tags, rule_tag::kStoreClientsJoined) && ev.joined.empty()) {
        std::map<std::string, std::string> fields = matcher.fields(m, matched());
        if (fields.count("joined")) ev.joined = fields.at("joined") + "/" + fields.at("expected");
      }
      if (e.who.rank >= 0 && matcher.has_group(m.rule_index, "last_completed")) {
        if (std::optional<std::string> done = matcher.field(m, matched(), "last_completed")) {
          long long v = std::atoll(done->c_str());
          auto it = ev.last_completed.find(e.who.rank);
          if (it == ev.last_completed.end() || v < it->second) ev.last_completed[e.who.rank] = v;
        }
      }
    }
  }
  if (!ev.joined.empty()) f["clients_joined"] = ev.joined;
  if (ev.address_in_use) f["address_in_use"] = "true";
  if (ev.hang && has_tag(r.rule_tags, rule_tag::kHang)) {
    std::string op = get(r.fields, "op"), timeout = get(r.fields, "timeout_ms");
    r.headline = "Hang: " + (op.empty() ? std::string("a collective") : op) + " timed out" +
                 (timeout.empty() ? "" : " after " + timeout + " ms") +
                 (r.rank >= 0 ? " on rank " + std::to_string(r.rank) : "") + "; no rank crashed" +
                 (f.count("last_iteration") ? ", last iteration " + f["last_iteration"] : "");
  }
  return ev;
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
  // First the root's own facts (and the headlines that need them), then the checks the table
  // gives this root, evaluated against them.
  std::optional<ImportEvidence> import;
  std::optional<NcclEvidence> nccl;
  if (r.category == Category::Oom) {
    oom_facts(r, matcher.tables().oom_phases);
  } else if (r.category == Category::Shape) {
    if (!r.frames.empty()) {
      const std::string& p = r.frames.back().path;
      r.facts["raised_in"] = p.find("megatron/training/arguments") != std::string::npos ? "megatron argument validation"
                             : p.find("/megatron/") != std::string::npos ? "megatron model code"
                             : p.find("-packages/torch/") != std::string::npos ? "pytorch"
                             : "user code";
      r.facts["raised_at"] = p + ":" + std::to_string(r.frames.back().line);
    }
  } else if (r.category == Category::Import) {
    import = import_facts(r);
  } else if (r.category == Category::Nccl) {
    nccl = nccl_facts(r, timeline, matcher);
  }
  CheckScene scene{r, job, matcher.tables().gpu_generations, import ? &*import : nullptr, nccl ? &*nccl : nullptr};
  std::vector<CheckResult> evaluated = run_check_table(matcher.tables().runbook_checks, scene);
  // Other headlines: decide/headline.cc, once the symptoms are known.
  // The rule's own advice (ids `advice.N`, status unknown) follows the evaluated checks.
  evaluated.insert(evaluated.end(), r.checks.begin(), r.checks.end());
  r.checks = std::move(evaluated);
  give_checks_unique_ids(r.checks);
}

}  // namespace megatriage
