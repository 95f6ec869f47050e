// Driver helper: a one-line progress report on stderr for long scans (files, bytes, GB/s, ETA),
// redrawn in place. Only the driver creates one, and only when stderr is a terminal; workers
// just add to the counters.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace megatriage {

/// What workers add to while they scan. Plain atomics: cheap enough to touch once per buffer.
struct ScanCounters {
  std::atomic<std::uint64_t> files_done{0};
  std::atomic<std::uint64_t> bytes_done{0};  // bytes as on disk (compressed files count at the end)
};

/// Formats the line shown after `elapsed_s` seconds (no escapes; exposed for tests).
std::string progress_text(std::uint64_t files_done, std::uint64_t files_total, std::uint64_t bytes_done,
                          std::uint64_t bytes_total, double elapsed_s);

/// Redraws progress_text() on `out` every 250 ms, starting after `delay` so that short runs print
/// nothing; the destructor erases the line. `out` must be a terminal (the caller checks).
class ProgressLine {
 public:
  ProgressLine(const ScanCounters& counters, std::uint64_t files_total, std::uint64_t bytes_total,
               std::FILE* out, std::chrono::milliseconds delay = std::chrono::milliseconds(1000));
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void run();
  const ScanCounters& counters_;
  std::uint64_t files_total_, bytes_total_;
  std::FILE* out_;
  std::chrono::milliseconds delay_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace megatriage
