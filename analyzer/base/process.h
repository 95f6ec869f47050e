// Running SLURM's commands (sacct, scontrol, squeue, scancel): fork/exec without a shell, output
// captured, a time limit. Used by the post-mortem and the watcher; nothing else starts processes.
#pragma once

#include <string>
#include <vector>

namespace megatriage {

struct CommandResult {
  bool started = false;  // false: the program could not be run (not installed)
  int status = -1;       // exit status, or -1 if killed or not started
  std::string out, err;
};

/// Runs argv[0] (looked up in PATH) with stdin from /dev/null; kills it after `timeout_ms`.
/// Output beyond 64 MiB per stream is dropped.
CommandResult run_command(const std::vector<std::string>& argv, int timeout_ms = 30000);

}  // namespace megatriage
