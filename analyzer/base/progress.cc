#include "base/progress.h"

#include <cinttypes>

namespace megatriage {

std::string progress_text(std::uint64_t files_done, std::uint64_t files_total, std::uint64_t bytes_done,
                          std::uint64_t bytes_total, double elapsed_s) {
  if (bytes_done > bytes_total) bytes_done = bytes_total;
  const double gb = 1e9;
  double rate = elapsed_s > 0 ? static_cast<double>(bytes_done) / gb / elapsed_s : 0;
  char eta[32] = "ETA --";
  if (rate > 0 && bytes_done > 0) {
    double left = static_cast<double>(bytes_total - bytes_done) / gb / rate;
    if (left < 60)
      std::snprintf(eta, sizeof eta, "ETA %.0f s", left);
    else
      std::snprintf(eta, sizeof eta, "ETA %.0f min", left / 60);
  }
  char line[160];
  std::snprintf(line, sizeof line, "megatriage: %" PRIu64 "/%" PRIu64 " files, %.2f/%.2f GB, %.2f GB/s, %s",
                files_done, files_total, static_cast<double>(bytes_done) / gb,
                static_cast<double>(bytes_total) / gb, rate, eta);
  return line;
}

ProgressLine::ProgressLine(const ScanCounters& counters, std::uint64_t files_total,
                           std::uint64_t bytes_total, std::FILE* out, std::chrono::milliseconds delay)
    : counters_(counters), files_total_(files_total), bytes_total_(bytes_total), out_(out), delay_(delay),
      start_(std::chrono::steady_clock::now()), thread_([this] { run(); }) {}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (drawn_) {
    std::fputs("\r\x1b[K", out_);  // leave the terminal as we found it
    std::fflush(out_);
  }
}

void ProgressLine::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (delay_.count() > 0 && wake_.wait_for(lock, delay_, [this] { return stop_; })) return;
  do {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string text = progress_text(counters_.files_done.load(std::memory_order_relaxed), files_total_,
                                     counters_.bytes_done.load(std::memory_order_relaxed), bytes_total_,
                                     elapsed);
    std::fprintf(out_, "\r\x1b[K%s", text.c_str());
    std::fflush(out_);
    drawn_ = true;
  } while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; }));
}

}  // namespace megatriage
