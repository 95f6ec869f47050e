// `megatriage postmortem JOBID`: asks SLURM (sacct, scontrol; fork/exec, no shell) about a
// finished job, finds its logs, drops to the job owner's uid when run as root, runs the triage
// pipeline and lets SLURM's facts (TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, CANCELLED by) decide what
// the logs cannot. Writes megatriage-<jobid>.json atomically. Does not change the triage stages.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "match/knowledge_tables.h"
#include "model/report.h"
#include "slurm/slurm_job.h"

namespace megatriage {

struct PostmortemOptions {
  std::string job_id;                   // empty: SLURM_JOB_ID from the environment
  std::string logs_dir;                 // --logs: use these logs instead of looking for them
  std::string partials_dir;             // --partials: the nodes' partial reports (default:
                                        // WorkDir/megatriage/JOBID when it exists)
  std::string report_dir;               // --report-dir; empty: the directory of the job's log
  std::string format = "text";          // what goes to stdout: text | json | html
  std::vector<std::string> rules_dirs;  // --rules
  bool color = false;
  std::size_t context_lines = 3;        // --context
  bool verbose = false;                 // -v: info diagnostics in the text report
  std::size_t width = 100;              // --width (the report also goes to a file: not the terminal's)
};

class SlurmCommands;

/// Drops to the job owner's uid/gid (and their groups) so that only what the owner may read is
/// read and what is written belongs to the owner. Requires: running as root; `job.uid` known.
/// False, with the reason in `err`, when that cannot be done.
bool drop_privileges(const SlurmJobInfo& job, std::string& err);

/// Runs the command. Returns the exit code (base/exit_codes.h; kExitUsage also for a job not
/// found); `out` gets the report for stdout, `err` messages for stderr. Asks the real SLURM
/// commands.
int run_postmortem(const PostmortemOptions& options, std::string& out, std::string& err);

/// The same, asking `slurm`. Its steps, in order: find the job argument, wait for a final
/// state (wait_for_final_state), complete the job's facts, name its logs, drop to the job's
/// owner when root, find the log files, triage, write the report. When sacct fails, the job's
/// facts come from `scontrol show job`; when scontrol does not know the job either, `--logs`
/// alone is triaged (no `slurm` block; a `postmortem.no-slurm-facts` diagnostic says why), and
/// without `--logs` it is a usage error that quotes sacct's own error.
int run_postmortem(const PostmortemOptions& options, SlurmCommands& slurm, std::string& out,
                   std::string& err);

/// How long the post-mortem re-asks while sacct lags behind scontrol (PENDING or a short
/// NodeList right after the end).
inline constexpr std::chrono::seconds kSacctSettleWait{10};
/// How long it waits for the job's steps to end after the job did (KillWait is 30 s by default).
inline constexpr std::chrono::seconds kStepsEndWait{45};

/// What SLURM said about a job once its accounting settled, or the waits ran out.
struct SlurmAnswer {
  std::optional<SlurmJobInfo> job;              ///< from sacct's last answer; none: unknown to sacct
  std::map<std::string, std::string> scontrol;  ///< the last `scontrol show job` that succeeded
  bool sacct_ran = false;      ///< sacct could be started at least once
  std::string sacct_error;     ///< why sacct's last call failed, in its own words; empty: it answered
  bool heterogeneous = false;  ///< sacct answered with 123+0 rows (asking stopped there)
  int queries = 0;             ///< rounds of scontrol + sacct
};

/// Asks scontrol and then sacct about `job_id` until they agree that the job is over: again
/// after 250 ms (500 ms from the fifth round) while scontrol knows the job but sacct does not,
/// sacct's state is not final but scontrol's is (or scontrol no longer knows the job), or
/// scontrol's NodeList is longer, for at most kSacctSettleWait; and while a step other than
/// `.extern` is still running, for at most kStepsEndWait. A failing sacct counts as one that
/// does not know the job (SlurmAnswer::sacct_error says why). Waits through `slurm.sleep_for`.
SlurmAnswer wait_for_final_state(SlurmCommands& slurm, const std::string& job_id);

/// Adds `job` to `report` and adjusts the root cause where SLURM's state decides what the logs
/// cannot (time limit, host OOM, node failure, cancellation, a failure with no cause in the logs).
/// The causes' words come from `words` (the rules' `slurm_states` table); one it lacks is given
/// in plain words, with a `postmortem.slurm-state-missing` warning in the report.
void apply_slurm_facts(Report& report, const SlurmJobInfo& job, const std::vector<SlurmStateEntry>& words);

}  // namespace megatriage
