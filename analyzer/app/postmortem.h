// `megatriage postmortem JOBID`: asks SLURM (sacct, scontrol; fork/exec, no shell) about a
// finished job, finds its logs, drops to the job owner's uid when run as root, runs the triage
// pipeline and lets SLURM's facts (TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, CANCELLED by) decide what
// the logs cannot. Writes megatriage-<jobid>.json atomically. Does not change the triage stages.
#pragma once

#include <string>
#include <vector>

#include "model/report.h"
#include "slurm/slurm_job.h"

namespace megatriage {

struct PostmortemOptions {
  std::string job_id;                   // empty: SLURM_JOB_ID from the environment
  std::string logs_dir;                 // --logs: use these logs instead of looking for them
  std::string report_dir;               // --report-dir; empty: the directory of the job's log
  std::string format = "text";          // what goes to stdout: text | json
  std::vector<std::string> rules_dirs;  // --rules
  bool color = false;
};

/// Runs the command. Returns the exit code (base/exit_codes.h; kExitUsage also for a job not found);
/// `out` gets the report for stdout, `err` messages for stderr.
int run_postmortem(const PostmortemOptions& options, std::string& out, std::string& err);

/// Adds `job` to `report` and adjusts the root cause where SLURM's state decides what the logs
/// cannot (time limit, host OOM, node failure, cancellation, a failure with no cause in the logs).
void apply_slurm_facts(Report& report, const SlurmJobInfo& job);

}  // namespace megatriage
