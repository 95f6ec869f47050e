// Unit tests for reading squeue's answer (slurm/job_queue.h): running, ended, or unknown when
// squeue itself failed (which watch retries instead of taking for the job's end).
#include "slurm/job_queue.h"

#include <doctest/doctest.h>

using namespace megatriage;

TEST_SUITE("job_queue") {
TEST_CASE("job_queue: a listed state that can change is running; final or none is ended") {
  CHECK(read_squeue_answer({true, 0, "RUNNING\n", ""}).state == QueueState::Running);
  CHECK(read_squeue_answer({true, 0, "PENDING\n", ""}).state == QueueState::Running);
  CHECK(read_squeue_answer({true, 0, "COMPLETING\n", ""}).state == QueueState::Running);
  CHECK(read_squeue_answer({true, 0, "", ""}).state == QueueState::Ended);
  CHECK(read_squeue_answer({true, 0, "\n", ""}).state == QueueState::Ended);
  CHECK(read_squeue_answer({true, 0, "COMPLETED\n", ""}).state == QueueState::Ended);
  CHECK(read_squeue_answer({true, 0, "CANCELLED by 0\n", ""}).state == QueueState::Ended);
  // An array job: one task still running keeps the job running.
  CHECK(read_squeue_answer({true, 0, "COMPLETED\nRUNNING\n", ""}).state == QueueState::Running);
}

TEST_CASE("job_queue: a job the controller forgot has ended; any other failure is unknown") {
  CHECK(read_squeue_answer({true, 1, "", "slurm_load_jobs error: Invalid job id specified\n"}).state ==
        QueueState::Ended);
  QueueAnswer down = read_squeue_answer(
      {true, 1, "", "squeue: error: Unable to contact slurm controller (connect failure)\nmore\n"});
  CHECK(down.state == QueueState::Unknown);
  CHECK(down.error == "squeue: error: Unable to contact slurm controller (connect failure)");
  QueueAnswer silent = read_squeue_answer({true, 1, "", ""});
  CHECK(silent.state == QueueState::Unknown);
  CHECK(silent.error == "squeue exited with status 1");
  QueueAnswer missing = read_squeue_answer({false, -1, "", ""});
  CHECK(missing.state == QueueState::Unknown);
  CHECK(missing.error.find("could not be run") != std::string::npos);
  // Killed after its time limit (a hung controller): unknown too.
  CHECK(read_squeue_answer({true, -1, "", ""}).state == QueueState::Unknown);
}
}
