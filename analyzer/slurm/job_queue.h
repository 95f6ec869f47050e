// Whether a SLURM job still runs, as `watch --job` asks it: `squeue -h -j JOB -o %T`, read into
// running / ended / unknown. Unknown (squeue missing, the controller unreachable, a timeout) is
// not "ended": the caller retries it (app/watch.cc) rather than stopping on one failed call.
#pragma once

#include <string>

#include "base/process.h"

namespace megatriage {

enum class QueueState : unsigned char {
  Running,  // squeue lists the job in a state that can still change (PENDING, RUNNING, ...)
  Ended,    // squeue no longer lists it, lists it in a final state, or no longer knows its id
  Unknown,  // squeue failed: nothing can be said
};

struct QueueAnswer {
  QueueState state = QueueState::Unknown;
  std::string error;  // for Unknown: squeue's own words (first line of stderr), or why it did not run
};

/// Reads the result of `squeue -h -j JOB -o %T`. Pure: unit-tested on canned results.
QueueAnswer read_squeue_answer(const CommandResult& result);

/// Runs `squeue -h -j JOB_ID -o %T` (10 s limit) and reads its answer.
QueueAnswer ask_squeue(const std::string& job_id);

}  // namespace megatriage
