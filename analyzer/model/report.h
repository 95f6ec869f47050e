// The report model: everything a renderer needs, decided already. Renderers format only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "model/slurm_job_info.h"
#include "model/traceback.h"

namespace megatriage {

constexpr int kSchemaVersion = 1;

/// One suggested check, evaluated as far as the logs allow.
struct CheckResult {
  std::string id;      // stable: world_size_product, heads_divisible_by_tp, ... or advice-N
  std::string text;    // what to check
  std::string status;  // failed | passed | unknown
  std::string detail;  // the figures; for unknown, which fact is missing and where to find it
};

struct RootCauseReport {
  std::string category;        // oom|shape|import|nccl|unknown
  std::string rule;            // rule id
  std::vector<std::string> rule_tags;  // the rule's tags: what later stages decide on (never the id)
  std::string title;
  std::string explain;         // placeholders filled
  std::string evidence;        // "traceback" | "line"
  int rank = -1, local_rank = -1;
  int task = -1;               // SLURM task id (srun --label, %t in the file name)
  std::string host;
  std::string file;            // display path
  std::uint64_t line = 0;
  std::optional<std::int64_t> time_us;    // best estimate (see time_basis)
  std::optional<std::int64_t> after_us;   // lower bound (last stamp before, same stream)
  std::optional<std::int64_t> before_us;  // upper bound (first stamp after, same stream)
  std::string time_basis;      // explicit | bounded | inherited | none
  bool year_inferred = false;
  std::string exception;       // the decisive exception line
  std::vector<std::string> chain;  // every exception line of the chain, oldest first
  std::vector<Frame> frames;   // innermost frames, outermost of them first
  std::string headline;        // one line of figures, e.g. `OOM on rank 12 (node03, GPU 4) during backward: ...`
  std::vector<CheckResult> checks;
  std::map<std::string, std::string> fields;  // named groups of the rule
  std::map<std::string, std::string> facts;   // figures from the logs (snake_case keys)
  std::string confidence;      // high | medium | low
  std::string basis;           // cause | nccl-fallback (no cause anywhere) | teardown-fallback
  std::vector<std::string> reasons;  // why this and not something else
};

struct SymptomGroup {
  std::string rule;            // rule id, or python.unclassified-exception
  std::string title;
  std::string category;
  std::string role;            // symptom | teardown | cause (same or other causes, later)
  std::uint64_t count = 0;
  std::vector<int> ranks;      // sorted, unique
  std::vector<std::string> hosts;  // sorted, unique
  std::optional<std::int64_t> first_us, last_us;
  std::optional<std::int64_t> delay_us;  // first_us - root time
  std::string example;         // one example text (first in time)
  std::string first_file;
  std::uint64_t first_line = 0;
};

struct FileSummary {
  std::string path;
  std::string compression;
  std::uint64_t size_bytes = 0, bytes = 0, lines = 0, events = 0;
  int rank = -1, local_rank = -1, task = -1;
  bool skipped = false;
};

struct Report {
  std::string verdict;         // failure | no_failure
  std::optional<RootCauseReport> root_cause;
  std::vector<SymptomGroup> symptoms;
  std::vector<FileSummary> files;
  std::vector<Diagnostic> diagnostics;
  std::vector<std::string> rules_dirs;
  std::vector<std::string> scripts;   // batch scripts linted into the checks
  std::size_t rule_count = 0;
  std::string ordering;        // how sure the ordering is, in words
  std::optional<SlurmJobInfo> slurm;  // `megatriage postmortem`: what SLURM says about the job
};

}  // namespace megatriage
