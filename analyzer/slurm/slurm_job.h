// SLURM job facts for `megatriage postmortem`: parses `sacct --parsable2` and `scontrol show job`
// text, decodes `N:S` exit codes and job states, expands sbatch's %-patterns and finds the
// output/error paths of a batch script. Pure text in, values out: runs no command and touches
// no file (postmortem.cc does that), so every function here is unit-tested on captured text.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/slurm_job_info.h"

namespace megatriage {

/// A parsed job id argument: `123`, `123_4` (array task) or `123+0` (heterogeneous component).
struct SlurmJobId {
  std::string text;
  std::string array_job_id, array_task_id;  // for 123_4
  bool heterogeneous = false;
  bool valid = false;
};
SlurmJobId parse_job_id(std::string_view text);

/// Rows of `sacct --parsable2` output, each a column-name -> value map. The first non-empty
/// line is the header. A row with more fields than the header (a `|` inside SubmitLine) gives
/// the extra fields back to SubmitLine. Lines that do not fit are dropped.
std::vector<std::map<std::string, std::string>> parse_sacct_parsable(std::string_view text);

/// Builds the job from sacct rows: the row whose JobID is `job_id` (else the first row without
/// a `.`), its steps (`job_id.*`), and the derived flags. nullopt when no row is the job.
std::optional<SlurmJobInfo> slurm_job_from_sacct(
    const std::vector<std::map<std::string, std::string>>& rows, const std::string& job_id);

/// `scontrol show job` output as Key -> Value. Command, WorkDir, StdOut, StdErr, StdIn and Reason
/// may hold spaces: they take the rest of their line. Empty map for "Invalid job id".
std::map<std::string, std::string> parse_scontrol_show_job(std::string_view text);

/// Adds scontrol's values to `info` (expanded StdOut/StdErr, WorkDir, NodeList when sacct's is
/// shorter, UserId `name(uid)`, GroupId, array ids). sacct's final state is kept.
void merge_scontrol(SlurmJobInfo& info, const std::map<std::string, std::string>& fields);

/// Builds the job from `scontrol show job` alone, for when sacct cannot answer (accounting
/// disabled, slurmdbd down): state, exit codes, RunTime, TimeLimit and merge_scontrol's values;
/// no steps and no cancelling user (scontrol keeps neither). nullopt for an empty map.
std::optional<SlurmJobInfo> slurm_job_from_scontrol(const std::map<std::string, std::string>& fields,
                                                    const std::string& job_id);

/// `CANCELLED by 0` -> CANCELLED; `OUT_OF_ME+` is not expected (we ask for --parsable2).
std::string base_state(std::string_view state);
/// The uid in `CANCELLED by N`, else -1.
long cancelled_by_uid(std::string_view state);
/// True once the state can no longer change (not PENDING/RUNNING/COMPLETING/SUSPENDED/...).
bool is_final_state(std::string_view state);
/// One sentence on what a state means (sacct man page).
std::string state_meaning(std::string_view state);

/// `N:S` -> exit status and signal; false if not of that form.
bool decode_exit_code(std::string_view code, int& status, int& signal);
/// `1:0 (exit 1)`, `0:9 (killed by SIGKILL)`, `0:125 (out of memory)`; the text alone if odd.
std::string describe_exit_code(std::string_view code);
/// SIGKILL for 9; `signal N` for numbers without a name.
std::string signal_name(int signal);

/// Number of hosts in a hostlist expression (`node[1-3,7],gpu01` -> 5); 0 for empty/(null).
std::size_t hostlist_count(std::string_view list);
/// First host of a hostlist expression (`node[1-2]` -> node1).
std::string hostlist_first(std::string_view list);
/// Every host of a hostlist expression, in its order (`node[01-02],gpu7` -> node01 node02
/// gpu7; zero padding kept, several brackets in one name multiply). Stops after `max` hosts.
std::vector<std::string> hostlist_expand(std::string_view list, std::size_t max = 1 << 20);

/// Values for sbatch's filename patterns.
struct PatternContext {
  std::string job_id;         // %j: the task's own numeric id
  std::string array_job_id;   // %A (the job id for plain jobs)
  std::string array_task_id;  // %a (4294967294 for plain jobs, as sbatch does)
  std::string name;           // %x
  std::string user;           // %u
  std::string first_node;     // %N
};
/// Expands %x %j %J %A %a %N %n %t %s %u %% (with an optional zero-pad width, `%4j`) and makes a
/// relative result absolute under `work_dir`. Unknown letters are left as they are.
std::string expand_slurm_pattern(std::string_view pattern, const PatternContext& ctx,
                                 const std::string& work_dir);

/// The --output / --error patterns of a job: from `#SBATCH` lines of the batch script (as
/// `sacct --batch-script` prints it, header lines allowed), overridden by options on the
/// submit line. Empty when not given.
struct OutputPatterns {
  std::string output, error;
};
OutputPatterns output_patterns(std::string_view batch_script, std::string_view submit_line);

/// True if `name` contains `job_id` with no digit right before or after it.
bool name_mentions_job(std::string_view name, std::string_view job_id);

}  // namespace megatriage
