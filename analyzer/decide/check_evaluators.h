// Check evaluators: how one runbook check is decided from the root cause's facts and fields.
// Which checks a root cause gets, and their words, are data (`runbook_checks` in
// rules/checks.json, applied by runbook_checks.cc); an entry names its evaluator here: a
// built-in one where the figures need code (a product of parallel sizes, a GPU generation, the
// shapes of a matmul), `divisible` for "fact % product of facts", `template` for a status and
// detail written in the table.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "decide/checks.h"
#include "match/knowledge_tables.h"
#include "model/report.h"

namespace megatriage {

/// What the import checks read: the source trees of the root traceback's frames.
struct ImportEvidence {
  std::set<std::string> trees;  // distinct source trees (site-packages excluded)
  std::string work_tree;        // the tree of the outermost source frame: the launched script's
  bool venv = false;            // a frame runs from a `.venv`/`venv`
  std::string packages;         // the first `...-packages/` directory seen
};

/// What the NCCL checks read, gathered once from the whole timeline.
struct NcclEvidence {
  bool name_failure = false;    // a name-resolution error was logged
  bool address_in_use = false;  // a rule tagged address-in-use matched
  bool hang = true;             // no non-symptom traceback anywhere: nothing crashed
  std::string joined;           // `1/2` clients joined the store, when a rule counted them
  std::map<int, long long> last_completed;  // rank → lowest "last completed" work id seen
};

/// Everything an evaluator may read. `import`/`nccl` are set for roots of those categories.
struct CheckScene {
  const RootCauseReport& root;  // facts (job-wide and the root's own), fields, frames, tags
  const JobFacts& job;
  const std::vector<GpuGenerationEntry>& gpus;
  const ImportEvidence* import = nullptr;
  const NcclEvidence* nccl = nullptr;
};

/// A check's status and the figures behind it.
struct CheckOutcome {
  CheckStatus status = CheckStatus::Unknown;
  std::string detail;
};

/// Evaluates `entry` (any evaluator). nullopt: the check does not apply to this root (the
/// figures it is about do not exist here, e.g. fragmentation without an OOM message's sizes, or
/// a template whose placeholders have no value and no `otherwise`).
std::optional<CheckOutcome> evaluate_check(const RunbookCheckEntry& entry, const CheckScene& scene);

/// True when `name` is a built-in evaluator this file implements.
bool implements_evaluator(std::string_view name);

/// `TP 2 PP 1 CP 1 DP 4` from the facts that are known; empty when none is.
std::string parallel_figures(const std::map<std::string, std::string>& facts);

/// `MBS 4, GBS 256, seq 8192` from the facts that are known; empty when none is.
std::string batch_figures(const std::map<std::string, std::string>& facts);

}  // namespace megatriage
