// The real SLURM commands; see slurm_commands.h.
#include "slurm/slurm_commands.h"

#include <thread>

namespace megatriage {

CommandResult SystemSlurmCommands::show_job(const std::string& job_id) {
  return run_command({"scontrol", "show", "job", job_id});
}

CommandResult SystemSlurmCommands::sacct(const std::string& job_id, const std::string& columns) {
  return run_command({"sacct", "-j", job_id, "--parsable2", "--format=" + columns});
}

CommandResult SystemSlurmCommands::batch_script(const std::string& job_id) {
  return run_command({"sacct", "-j", job_id, "--batch-script"});
}

SlurmCommands::Clock::time_point SystemSlurmCommands::now() { return Clock::now(); }

void SystemSlurmCommands::sleep_for(std::chrono::milliseconds duration) {
  std::this_thread::sleep_for(duration);
}

}  // namespace megatriage
