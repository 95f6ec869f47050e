#include "app/watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <thread>

#include "base/exit_codes.h"
#include "base/process.h"
#include "decide/root_cause.h"
#include "decide/timeline.h"
#include "input/discover.h"
#include "render/render.h"

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

bool job_running(const std::string& job_id) {
  // squeue knows only pending/running jobs; an empty answer means it ended.
  CommandResult r = run_command({"squeue", "-h", "-j", job_id, "-o", "%T"}, 10000);
  if (!r.started) return false;
  return r.status == 0 && r.out.find_first_not_of(" \n") != std::string::npos;
}

}  // namespace

int run_watch(const WatchOptions& options, std::ostream& out, std::ostream& err) {
  DiagnosticSink rule_diags;
  LoadedRules loaded = load_matcher(options.triage, rule_diags);
  std::vector<std::string> dirs = std::move(loaded.dirs);
  std::unique_ptr<RuleMatcher> matcher = std::move(loaded.matcher);
  std::map<std::string, Followed> followed;
  Clock::time_point start = Clock::now();
  std::optional<Clock::time_point> nccl_seen;
  bool job_ended = false;

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
    if (!options.job_id.empty() && !report_now && !job_running(options.job_id)) job_ended = true;
    bool timed_out = options.timeout_s > 0 && seconds_since(start) >= options.timeout_s;

    if (report_now || job_ended || timed_out) {
      DiagnosticSink run_diags;
      for (const auto& d : rule_diags.items()) run_diags.add(d);
      Report report = build_report(results, *matcher, options.triage, run_diags);
      report.rules_dirs = dirs;
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
      if (timed_out && !report_now && !job_ended) err << "megatriage watch: timed out\n";
      return report.root_cause ? kExitFailure : kExitNoFailure;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options.interval_s));
  }
}

}  // namespace megatriage
