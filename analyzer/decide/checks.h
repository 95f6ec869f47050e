// Checks stage (part of classify): gather the job's facts (Megatron configuration, launcher
// echoes, memory figures, GPU model), derive facts about the root cause itself (OOM phase and
// sizes, which frame raised a shape error, the missing module, the unreachable peer), and
// evaluate the runbook's checks against them: failed, passed, or unknown with what is missing.
// Which checks apply is data (rules/checks.json, runbook_checks.h); how each is decided is in
// check_evaluators.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "decide/timeline.h"
#include "extract/extract.h"
#include "match/rule_matcher.h"
#include "model/report.h"

namespace megatriage {

/// Job-wide facts, each key merged across files as the fact registry (model/fact_registry.h)
/// says: the first value seen in file order (rank 0's dump prints first) for configuration keys;
/// the highest for `last_iteration`; `peak_allocated_mb` of `rank` when that rank printed one,
/// else the highest. `where` says file:line for each.
struct JobFacts {
  std::map<std::string, std::string> values;
  std::map<std::string, std::string> where;
  /// Launch settings (master_addr, master_port, nnodes, nproc_per_node, world_size_env) as each
  /// file printed them: value → first file:line. More than one value means the nodes were
  /// launched differently.
  std::map<std::string, std::map<std::string, std::string>> launch_variants;
};

JobFacts collect_job_facts(const std::vector<FileResult>& files, int rank);

/// Parses `2.00 GiB`, `637.84 MiB`, `13.81 MiB`, `512 B` to bytes; nullopt when it is not a size.
std::optional<long long> parse_size_bytes(const std::string& text);

/// Phase of an OOM from the traceback frames, innermost first: the first `oom_phases` entry
/// (rules/oom-phases.json: backward, optimizer, checkpoint, data, forward) that names the
/// innermost frame it recognises; nullopt when none does.
std::optional<std::string> oom_phase(const std::vector<Frame>& frames, const std::vector<OomPhaseEntry>& phases);

/// Adds root facts to `r.facts`, evaluates the checks the `runbook_checks` table gives this root
/// (before the rule's own advice; every id unique) and sets the OOM and hang `r.headline`s
/// (others: compose_headline, decide/headline.h). `root` is the root event; `timeline` gives
/// the rest of the job.
void evaluate_checks(RootCauseReport& r, const Event& root, const JobFacts& job,
                     const std::vector<TimelineEntry>& timeline, const RuleMatcher& matcher);

}  // namespace megatriage
