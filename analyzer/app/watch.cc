#include "app/watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "app/readable_input.h"
#include "base/exit_codes.h"
#include "base/process.h"
#include "decide/root_cause.h"
#include "decide/timeline.h"
#include "input/discover.h"
#include "render/render.h"
#include "slurm/job_queue.h"

namespace megatriage {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One followed file: where we are in it and the analysis of what came before.
struct Followed {
  SourceFile file;
  std::uint64_t offset = 0;
  ino_t inode = 0;
  std::unique_ptr<IncrementalAnalyzer> analyzer;
};

// Reads what was appended to `f` since the last poll. A file that shrank or was replaced
// (log rotation, a requeued job rewriting it) is analysed again from the start.
bool poll_file(Followed& f, const RuleMatcher& matcher, const AnalyzeOptions& options) {
  struct stat st;
  if (::stat(f.file.path.c_str(), &st) != 0) return false;
  auto size = static_cast<std::uint64_t>(st.st_size);
  if (!f.analyzer || size < f.offset || st.st_ino != f.inode) {
    f.analyzer = std::make_unique<IncrementalAnalyzer>(f.file, matcher, options);
    f.offset = 0;
    f.inode = st.st_ino;
  }
  if (size == f.offset) return false;
  int fd = ::open(f.file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  std::vector<char> buffer(1 << 20);
  bool grew = false;
  while (f.offset < size) {
    ssize_t n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(f.offset));
    if (n <= 0) break;
    f.analyzer->feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    f.offset += static_cast<std::uint64_t>(n);
    grew = true;
  }
  ::close(fd);
  return grew;
}

// A named path that does not exist: a usage error, except a file of a job given with --job
// whose folder exists (SLURM creates the job's output files when it starts; never the folders).
bool may_appear_later(const std::string& path, const WatchOptions& options) {
  if (options.job_id.empty()) return false;
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return std::filesystem::is_directory(parent.empty() ? "." : parent, ec);
}

// When to ask squeue again after `failures` failures in a row: the poll interval, doubled at
// each failure, at most a minute; after kSqueueRetries failures in a row watch gives up.
constexpr int kSqueueRetries = 6;
std::chrono::duration<double> squeue_backoff(double interval_s, int failures) {
  double delay = interval_s;
  for (int i = 1; i < failures && delay < 60.0; ++i) delay *= 2;
  return std::chrono::duration<double>(std::min(delay, 60.0));
}

}  // namespace

int run_watch(const WatchOptions& options, std::ostream& out, std::ostream& err) {
  for (const std::string& path : options.triage.paths) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) continue;
    if (!may_appear_later(path, options)) {
      err << "megatriage watch: " << missing_path_message(path) << "\n";
      return kExitUsage;
    }
    err << "megatriage watch: " << path << " does not exist yet; waiting for job " << options.job_id
        << " to write it\n";
  }
  DiagnosticSink rule_diags;
  LoadedRules loaded = load_matcher(options.triage, rule_diags);
  if (!loaded.problem.empty()) {
    err << "megatriage watch: " << loaded.problem << "\n";
    return kExitUsage;
  }
  std::vector<std::string> dirs = std::move(loaded.dirs);
  std::unique_ptr<RuleMatcher> matcher = std::move(loaded.matcher);
  std::map<std::string, Followed> followed;
  Clock::time_point start = Clock::now();
  std::optional<Clock::time_point> nccl_seen;
  bool job_ended = false;
  // squeue failures in a row, and when to ask it next (the backoff between failed calls).
  int squeue_failures = 0;
  bool slurm_unavailable = false;
  Clock::time_point next_squeue = start;

  while (true) {
    // New files (a rank that starts late, a torchrun attempt directory) are picked up here.
    DiagnosticSink discover_diags;
    DiscoverOptions dopts;
    dopts.follow_symlinks_outside = options.triage.follow_symlinks_outside;
    for (auto& src : discover_sources(options.triage.paths, dopts, discover_diags)) {
      auto [it, inserted] = followed.try_emplace(src.display_path);
      if (inserted) it->second.file = src;
      it->second.file.id = src.id;  // ids follow the sorted paths, which a new file can shift
    }
    for (auto& [path, f] : followed) poll_file(f, *matcher, options.triage.analyze);

    std::vector<FileResult> results;
    for (auto& [path, f] : followed) {
      if (!f.analyzer) continue;
      results.push_back(f.analyzer->snapshot());
      results.back().file.id = f.file.id;
      for (auto& e : results.back().events) e.origin.file = f.file.id;
    }
    // Snapshot order must follow discovery order (file ids) for a stable timeline.
    std::sort(results.begin(), results.end(),
              [](const FileResult& a, const FileResult& b) { return a.file.id < b.file.id; });
    // A logs/ folder shared by several jobs: the watched job's files only.
    std::optional<JobChoice> job_choice;
    std::vector<Diagnostic> job_diags;
    if (!options.job_id.empty()) {
      JobSelection picked = select_jobs(std::move(results), {JobPick::Asked, {options.job_id}, false},
                                        options.triage.paths);
      results = std::move(picked.reports.front().files);
      job_choice = std::move(picked.reports.front().choice);
      job_diags = std::move(picked.reports.front().diagnostics);
    }

    bool report_now = false;
    {
      std::vector<FileResult> probe = results;
      DiagnosticSink sink;
      Report report = build_report(probe, *matcher, options.triage, sink);
      if (report.root_cause) {
        // A cause is final once its exception line is in; NCCL-only evidence may still be
        // preceded by a cause that another rank has not finished writing.
        if (report.root_cause->basis == Basis::Cause) {
          report_now = true;
        } else {
          if (!nccl_seen) {
            nccl_seen = Clock::now();
            err << "megatriage watch: NCCL-only evidence so far; waiting up to " << options.nccl_grace_s
                << " s for an earlier cause\n";
          }
          report_now = seconds_since(*nccl_seen) >= options.nccl_grace_s;
        }
      }
    }
    if (!options.job_id.empty() && !report_now && Clock::now() >= next_squeue) {
      // One failed squeue (a controller restart, a slow RPC) must not read as "the job ended".
      QueueAnswer queue = ask_squeue(options.job_id);
      if (queue.state == QueueState::Unknown) {
        ++squeue_failures;
        if (squeue_failures > kSqueueRetries) {
          err << "megatriage watch: " << queue.error << "; squeue failed " << squeue_failures
              << " times in a row: cannot tell whether job " << options.job_id << " still runs; giving up\n";
          slurm_unavailable = true;
        } else {
          const auto wait = squeue_backoff(options.interval_s, squeue_failures);
          err << "megatriage watch: " << queue.error << "; asking squeue again in " << wait.count()
              << " s (retry " << squeue_failures << " of " << kSqueueRetries << ")\n";
          next_squeue = Clock::now() + std::chrono::duration_cast<Clock::duration>(wait);
        }
      } else {
        squeue_failures = 0;
        job_ended = queue.state == QueueState::Ended;
      }
    }
    bool timed_out = options.timeout_s > 0 && seconds_since(start) >= options.timeout_s;

    if (report_now || job_ended || timed_out || slurm_unavailable) {
      if (!report_now && job_ended && std::none_of(results.begin(), results.end(), has_text)) {
        // The job ended before writing a line we can read: not a success.
        err << "megatriage watch: job " << options.job_id
            << " ended and nothing readable was found under the given path(s)\n";
        return kExitUsage;
      }
      DiagnosticSink run_diags;
      for (auto& d : job_diags) run_diags.add(std::move(d));
      for (const auto& d : rule_diags.items()) run_diags.add(d);
      Report report = build_report(results, *matcher, options.triage, run_diags);
      report.rules_dirs = dirs;
      report.job = std::move(job_choice);
      if (options.json) {
        out << render_json(report);
      } else {
        out << render_text(report, options.text);
      }
      out.flush();
      if (report.root_cause && options.cancel && !options.job_id.empty() && !job_ended) {
        CommandResult c = run_command({"scancel", options.job_id}, 30000);
        err << "megatriage watch: " << (c.status == 0 ? "cancelled job " : "scancel failed for job ")
            << options.job_id << (c.status == 0 ? " (root cause found)" : ": " + c.err) << "\n";
      }
      if (report.root_cause) return kExitFailure;
      if (job_ended) return kExitNoFailure;
      if (slurm_unavailable) return kExitSlurmUnavailable;
      err << "megatriage watch: timed out after " << options.timeout_s
          << " s with no root cause found (the report above is what the logs show so far)\n";
      return kExitTimeout;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options.interval_s));
  }
}

}  // namespace megatriage
