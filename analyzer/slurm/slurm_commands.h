// The SLURM commands the post-mortem runs (scontrol show job, sacct, sacct --batch-script) and
// the clock it waits on, behind one interface: the real one starts processes (base/process.h),
// a test's answers with canned output and moves a fake clock. Parses nothing: slurm_job.h
// reads the output.
#pragma once

#include <chrono>
#include <string>

#include "base/process.h"

namespace megatriage {

/// What the post-mortem asks SLURM, one method per command line it runs. Implementations
/// need not be thread-safe (one post-mortem, one thread).
class SlurmCommands {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~SlurmCommands() = default;
  /// `scontrol show job JOB_ID`.
  virtual CommandResult show_job(const std::string& job_id) = 0;
  /// `sacct -j JOB_ID --parsable2 --format=COLUMNS`.
  virtual CommandResult sacct(const std::string& job_id, const std::string& columns) = 0;
  /// `sacct -j JOB_ID --batch-script`: the script the job was submitted with.
  virtual CommandResult batch_script(const std::string& job_id) = 0;
  /// The time the waits between queries are measured on.
  virtual Clock::time_point now() = 0;
  /// Waits `duration` before the next query.
  virtual void sleep_for(std::chrono::milliseconds duration) = 0;
};

/// Runs the real commands (found in PATH, 30 s limit each) and waits on the steady clock.
class SystemSlurmCommands final : public SlurmCommands {
 public:
  CommandResult show_job(const std::string& job_id) override;
  CommandResult sacct(const std::string& job_id, const std::string& columns) override;
  CommandResult batch_script(const std::string& job_id) override;
  Clock::time_point now() override;
  void sleep_for(std::chrono::milliseconds duration) override;
};

}  // namespace megatriage
