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

namespace megatriage {

/// One sacct step row (`25.batch`, `25.0`, `25.extern`).
struct SlurmStep {
  std::string id;         // as sacct prints it: 25.batch
  std::string state;      // as printed, e.g. `CANCELLED by 0`
  std::string exit_code;  // N:S
};

/// What SLURM knows about one job, merged from sacct, scontrol and the epilog environment.
/// Strings are empty when unknown; ints are -1 when unknown.
struct SlurmJobInfo {
  std::string job_id;             // as asked: 25, or 123_4 for an array task
  std::string job_id_raw;         // the task's own numeric id (= job_id for plain jobs)
  std::string array_job_id, array_task_id;  // empty for plain jobs
  std::string name;
  std::string state;              // base state: FAILED, CANCELLED, TIMEOUT, ... (no "by N")
  std::string exit_code;          // N:S of the batch script
  int exit_status = -1, signal = -1;
  std::string derived_exit_code;  // N:S, highest of the steps
  std::string elapsed, time_limit;
  std::string node_list;
  std::string work_dir;
  std::string user;
  long uid = -1, gid = -1;
  std::string submit_line;
  std::string std_out, std_err;   // expanded paths when known (scontrol), else patterns
  bool std_paths_expanded = false;
  std::vector<SlurmStep> steps;
  long cancelled_by = -1;         // uid from `CANCELLED by N`
  bool time_limit_hit = false;    // job or a step TIMEOUT
  bool out_of_memory = false;     // job or a step OUT_OF_MEMORY
  bool node_fail = false;         // job or a step NODE_FAIL
};

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
