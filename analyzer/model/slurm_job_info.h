// What SLURM knows about a job, as `megatriage postmortem` reports it. Plain data; slurm/ fills
// it from sacct and scontrol.
#pragma once

#include <string>
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

}  // namespace megatriage
