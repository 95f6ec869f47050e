#include "slurm/job_queue.h"

#include <sstream>

#include "slurm/slurm_job.h"

namespace megatriage {

QueueAnswer read_squeue_answer(const CommandResult& result) {
  QueueAnswer answer;
  if (!result.started) {
    answer.error = "squeue could not be run (is SLURM installed and on PATH?)";
    return answer;
  }
  if (result.status != 0) {
    // A job that left the controller's memory (MinJobAge after its end) is "Invalid job id":
    // that is an answer, not a failure.
    if (result.err.find("Invalid job id") != std::string::npos) {
      answer.state = QueueState::Ended;
      return answer;
    }
    std::string first = result.err.substr(0, result.err.find('\n'));
    answer.error = first.empty() ? "squeue exited with status " + std::to_string(result.status) : first;
    return answer;
  }
  // One state a line (an array job lists each task). Any state that can still change: running.
  answer.state = QueueState::Ended;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    std::string_view state = line;
    while (!state.empty() && (state.back() == ' ' || state.back() == '\r')) state.remove_suffix(1);
    while (!state.empty() && state.front() == ' ') state.remove_prefix(1);
    if (!state.empty() && !is_final_state(state)) answer.state = QueueState::Running;
  }
  return answer;
}

QueueAnswer ask_squeue(const std::string& job_id) {
  return read_squeue_answer(run_command({"squeue", "-h", "-j", job_id, "-o", "%T"}, 10000));
}

}  // namespace megatriage
