// `megatriage partial [PATH...] -o FILE`: flags of the per-node half of a multi-node triage;
// the analysis and the writing are run_partial (app/partial.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "app/partial.h"
#include "base/run_cache.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"

namespace megatriage {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

int partial_command(int argc, char** argv) {
  CLI::App app{"Analyse this node's log files and write a partial report, for `megatriage merge` to "
               "turn with the other nodes' into the job's report (logs on node-local disks).",
               "megatriage partial"};
  app.footer(R"(
Examples:
  srun --ntasks-per-node=1 megatriage partial /tmp/torchrun-logs -o $SHARED/mt/$SLURM_JOB_ID/$(hostname).json
  megatriage merge $SHARED/mt/$SLURM_JOB_ID
Paths are written as HOST:PATH (--host; default $SLURMD_NODENAME, else the host name), so equal
node-local paths of two nodes never collide; --host '' keeps them as read (shared storage).
The job (SLURM_JOB_ID, SLURM_CLUSTER_NAME) and its nodes (SLURM_JOB_NODELIST) come from SLURM's
environment; a merge refuses reports of different jobs and names the nodes that sent none.
Run as root with SLURM_JOB_UID set (an Epilog), it reads and writes as the job's user.
The format: docs/partial-reports.md. Exit codes: 0 written, 2 usage error or nothing readable
(written anyway: the merge names the node's problem), 3 internal error, 4 --timeout passed (a
report that says so is written).
)");
  PartialOptions options;
  options.triage.paths.clear();
  options.triage.cache = &RunCache::from_environment();
  app.add_option("paths", options.triage.paths, "Log files or directories of this node (default: logs)");
  app.add_option("-o,--output", options.output, "The partial report to write (ending in .zst: zstd-compressed)")
      ->required();
  app.add_option("--host", options.host, "Node name before every path (default: $SLURMD_NODENAME, else the host name)");
  app.add_option("--job", options.job_id, "The job these logs are of (default: $SLURM_JOB_ID)");
  app.add_option("--nodes", options.node_list,
                 "The job's nodes, as a SLURM hostlist (default: $SLURM_JOB_NODELIST): a merge names "
                 "those without a partial report");
  app.add_option("--context", options.context_lines,
                 "Raw lines kept before and after each event that can be the root cause (what the "
                 "merge's --context can show)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000}));
  long timeout_s = 0;
  app.add_option("--timeout", timeout_s,
                 "Give up after this many seconds, writing a report that says so (0: never; an "
                 "Epilog should set one)")
      ->check(CLI::Range(0L, 86400L));
  add_jobs_flag(app, options.triage.jobs);
  add_rules_flag(app, options.triage.rules_dirs, kRulesFlagHelp, false);
  app.add_flag("--follow-symlinks", options.triage.follow_symlinks_outside,
               "Follow symlinks that point outside the given directories");
  AnalyzeOptions& limits = options.triage.analyze;
  add_limit_flags(app, limits);
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  if (options.triage.paths.empty()) options.triage.paths.push_back("logs");
  if (app.count("--host") == 0) options.host = default_partial_host();
  if (app.count("--job") == 0) options.job_id = env("SLURM_JOB_ID");
  if (app.count("--nodes") == 0) options.node_list = env("SLURM_JOB_NODELIST");
  options.cluster = env("SLURM_CLUSTER_NAME");
  options.timeout = std::chrono::seconds(timeout_s);
  limits.split.buffer_bytes = std::max(limits.split.buffer_bytes, limits.split.max_line_bytes + 2);
  std::string err;
  const int rc = run_partial(options, err);
  std::cerr << err;
  return rc;
}

}  // namespace megatriage
