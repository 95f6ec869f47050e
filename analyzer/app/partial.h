// `megatriage partial` and `megatriage merge`: a job whose logs sit on many nodes' local disks
// is triaged by having every node analyse its own files and write a partial report
// (app/partial_report.h), and one process merge them: the same job-wide stages as run_triage
// on the same FileResults, hence the same report as one scan of every file.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "app/triage.h"

namespace megatriage {

struct PartialOptions {
  TriageOptions triage;              // paths, --rules, --jobs, limits
  std::string output;                // -o: the partial report (".zst": zstd-compressed)
  std::string host;                  // paths are written `host:path`; empty: as read
  std::string job_id, cluster;       // the job's identity (default: SLURM_JOB_ID, SLURM_CLUSTER_NAME)
  std::string node_list;             // the job's nodes as SLURM writes them (SLURM_JOB_NODELIST)
  std::size_t context_lines = 3;     // kept each side of an event that can be a root (--context)
  std::chrono::seconds timeout{0};   // 0: none; else the partial says it timed out and the run ends
};

/// The host name a partial report uses by default: SLURMD_NODENAME (the node's name in SLURM,
/// which is what SLURM_JOB_NODELIST lists), else the host name up to its first dot.
std::string default_partial_host();

/// Analyses the files, writes the partial report atomically (a temporary file in the same
/// folder, renamed; the folder is made when missing). Returns the exit code: 0 written, 2 a
/// usage error (written anyway when only the logs were the problem: the merge then names the
/// node's problem), 3 internal; `err` gets the messages.
int run_partial(const PartialOptions& options, std::string& err);

struct MergeOptions {
  TriageOptions triage;                // --rules, --job, --context, --script; `paths`: logs read here too
  std::vector<std::string> inputs;     // partial reports, or folders of them (not recursed)
  std::vector<std::string> nodes;      // --nodes: hostlists of nodes expected besides the partials' own
};

struct MergeOutcome {
  TriageOutcome triage;   // as run_triage's; usage_error for a wrong input
  int partials = 0;       // partial reports read
};

/// Reads the partial reports (refusing unknown versions and different jobs: usage_error), adds
/// the files of `options.triage.paths` read here (postmortem: logs it can see itself), and runs
/// the job-wide stages. A node of the job without a partial report is a `merge.missing-node`
/// diagnostic.
MergeOutcome run_merge(const MergeOptions& options);

/// Waits, up to `limit`, until `dir` holds at least `count` partial reports (the nodes' Epilogs
/// may still be writing theirs when the job's end is noticed). Returns how many it holds.
std::size_t wait_for_partials(const std::string& dir, std::size_t count, std::chrono::seconds limit);

/// How long `postmortem` waits for the nodes' partial reports (one per node of the job).
inline constexpr std::chrono::seconds kPartialsWait{30};

/// The partial reports in `dir` (every regular file whose name ends in .json or .json.zst),
/// sorted by name; empty when it is no folder.
std::vector<std::string> partial_files_in(const std::string& dir);

}  // namespace megatriage
