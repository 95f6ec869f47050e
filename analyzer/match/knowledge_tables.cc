// Knowledge tables: the names of GPU generations, of the slurm_states ids and placeholders, of
// the lint texts' placeholders and of the check evaluators, and the lookups (the tables themselves are parsed in rules.cc).

#include "match/knowledge_tables.h"

#include "match/rule_tags.h"
#include "match/rules.h"

#include <algorithm>
#include <set>
#include <utility>

namespace megatriage {

namespace {

constexpr std::pair<std::string_view, GpuGeneration> kGenerationNames[] = {
    {"older", GpuGeneration::Older},
    {"ampere", GpuGeneration::Ampere},
    {"hopper", GpuGeneration::Hopper},
    {"blackwell", GpuGeneration::Blackwell},
};

constexpr std::string_view kSlurmStateIds[] = {slurm_state::kNodeFail, slurm_state::kOutOfMemory,
                                               slurm_state::kTimeout, slurm_state::kCancelled,
                                               slurm_state::kFailed};

constexpr std::string_view kSlurmStatePlaceholders[] = {
    "job",  "job_id", "nodes", "limit",          "state",    "exit_code",   "meaning",
    "who",  "uid",    "where", "last_iteration", "progress", "at_iteration"};

constexpr std::string_view kLintPlaceholders[] = {
    "value",    "nodes", "path",     "count",   "variable",  "assigned",  "assigned_line",
    "gpus",     "gpu_option", "gpu_line", "missing", "effects", "arguments", "flag",
    "flag_line", "what", "expanded", "work_tree", "setup", "gpu", "unknown"};

// Keep in step with decide/check_evaluators.cc (a unit test compares the two).
constexpr std::string_view kBuiltinCheckEvaluators[] = {
    "oom_phase_and_sizes", "oom_allocation_size", "oom_fragmentation", "cuda_device_max_connections",
    "world_size_product",  "heads_divisible_by_tp", "batch_divisible", "shape_operands", "shape_config",
    "work_tree",           "uv_sync",               "pythonpath",      "master_addr_resolves",
    "port_reachable",      "same_command_all_ranks", "allocation",     "hang"};

}  // namespace

std::span<const std::string_view> builtin_check_evaluators() { return kBuiltinCheckEvaluators; }

bool is_check_evaluator(std::string_view name) {
  return name == kTemplateEvaluator || name == kDivisibleEvaluator ||
         std::find(std::begin(kBuiltinCheckEvaluators), std::end(kBuiltinCheckEvaluators), name) !=
             std::end(kBuiltinCheckEvaluators);
}

std::string_view generation_name(GpuGeneration g) {
  for (const auto& [name, gen] : kGenerationNames) {
    if (gen == g) return name;
  }
  return "";
}

bool parse_generation(std::string_view name, GpuGeneration& out) {
  for (const auto& [n, gen] : kGenerationNames) {
    if (n == name) {
      out = gen;
      return true;
    }
  }
  return false;
}

bool is_slurm_state_id(std::string_view id) {
  return std::find(std::begin(kSlurmStateIds), std::end(kSlurmStateIds), id) != std::end(kSlurmStateIds);
}

bool is_slurm_state_placeholder(std::string_view name) {
  return std::find(std::begin(kSlurmStatePlaceholders), std::end(kSlurmStatePlaceholders), name) !=
         std::end(kSlurmStatePlaceholders);
}

const SlurmStateEntry* find_slurm_state(const std::vector<SlurmStateEntry>& table, std::string_view id) {
  for (const SlurmStateEntry& e : table) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

bool is_lint_placeholder(std::string_view name) {
  return std::find(std::begin(kLintPlaceholders), std::end(kLintPlaceholders), name) !=
         std::end(kLintPlaceholders);
}

const LintText* find_lint_text(const std::vector<LintRuleEntry>& table, std::string_view rule,
                               std::string_view variant) {
  for (const LintRuleEntry& e : table) {
    if (e.id != rule) continue;
    for (const LintText& t : e.variants) {
      if (t.variant == variant) return &t;
    }
    return nullptr;  // ids are unique after merging: no other entry can have it
  }
  return nullptr;
}

int check_table_tags(const std::vector<Rule>& rules, const KnowledgeTables& tables, DiagnosticSink& diags) {
  std::set<std::string> carried;
  for (const Rule& r : rules) carried.insert(r.tags.begin(), r.tags.end());
  std::string what, first;
  int missing = 0;
  std::set<std::string> named;
  for (const RunbookCheckEntry& e : tables.runbook_checks) {
    for (const CheckCondition& c : e.when) {
      for (const auto* tags : {&c.tags_any, &c.tags_none}) {
        for (const std::string& t : *tags) {
          if (carried.count(t) || !named.insert(t).second) continue;
          ++missing;
          what += (what.empty() ? "" : "; ") + ("\"" + t + "\" (runbook_checks entry '" + e.id + "', " + e.source + ")");
          if (first.empty()) first = t;
        }
      }
    }
  }
  if (missing == 0) return 0;
  diags.add(Severity::Warning, "rules.tag-not-carried",
            "no loaded rule carries " + std::string(missing == 1 ? "this tag" : "these tags") +
                " that a check's condition asks for, so the condition never holds: " + what,
            "", 0, "fix the tag's spelling, or add \"tags\": [\"" + first + "\"] to the rule(s) it describes");
  return missing;
}

}  // namespace megatriage
