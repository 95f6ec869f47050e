#include "app/partial.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/iostreams/filter/zstd.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <boost/iostreams/device/back_inserter.hpp>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "app/partial_report.h"
#include "app/postmortem.h"
#include "app/readable_input.h"
#include "app/root_context.h"
#include "base/exit_codes.h"
#include "base/fork_join.h"
#include "base/version.h"
#include "decide/root_cause.h"
#include "input/reader.h"
#include "slurm/slurm_job.h"

namespace megatriage {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// The largest partial report merge reads (a node of 8 ranks writes well under 1 MB).
constexpr std::uint64_t kMaxPartialBytes = 1ull << 30;

// ---------------------------------------------------------------- partial

// Whether `e` can be chosen as the root cause, or be where the root's report points: the
// events select_root_cause looks at (causes, NCCL symptoms, teardown tracebacks, job ends).
// Their lines are kept for --context, since the merge cannot read the file.
bool may_be_root(const Event& e, const RuleMatcher& matcher) {
  if (e.kind == EventKind::Traceback) return true;
  const RuleRole role = event_role(e, matcher);
  return role == RuleRole::Cause || (role == RuleRole::Symptom && event_category(e, matcher) == Category::Nccl);
}

std::vector<ContextLine> context_of(const FileResult& r, const RuleMatcher& matcher, const PartialOptions& options) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> anchors;
  for (const Event& e : r.events)
    if (may_be_root(e, matcher)) anchors.emplace_back(e.origin.line, e.origin.offset);
  if (anchors.empty() || r.file.is_stdin || r.unopened || r.binary) return {};
  std::sort(anchors.begin(), anchors.end());
  anchors.erase(std::unique(anchors.begin(), anchors.end()), anchors.end());
  return read_context_around(r.file, anchors, options.context_lines, options.triage.analyze.read,
                             options.triage.analyze.split);
}

std::string zstd_compress(const std::string& text) {
  // The one place megatriage writes compressed bytes; Boost's zstd filter, as the reader's.
  std::string out;
  namespace io = boost::iostreams;
  io::filtering_ostream z;
  z.push(io::zstd_compressor(io::zstd_params(io::zstd::default_compression)));
  z.push(io::back_inserter(out));
  z.write(text.data(), static_cast<std::streamsize>(text.size()));
  z.reset();  // flushes and ends the frame
  return out;
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so that a
// merge never reads half of it; makes the folder first (every node of a job races to).
bool write_atomically(const std::string& path, const std::string& bytes, std::string& err) {
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  // Per process and thread: the deadline's header and the finished report never share one.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()) % 100000);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    err += "megatriage partial: cannot write " + path + ": " + std::strerror(errno) + "\n";
    return false;
  }
  std::size_t done = 0;
  bool ok = true;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { ok = false; break; }
    done += static_cast<std::size_t>(n);
  }
  if (ok && ::fsync(fd) != 0) ok = false;
  if (::close(fd) != 0) ok = false;
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) ok = false;
  if (!ok) {
    err += "megatriage partial: cannot write " + path + ": " + std::strerror(errno) + "\n";
    ::unlink(tmp.c_str());
  }
  return ok;
}

std::string encode(const PartialReport& p, const RuleMatcher* matcher, const std::string& output) {
  std::string json = partial_to_json(p, matcher);
  return ends_with(output, ".zst") ? zstd_compress(json) : json;
}

// Ends the run after options.timeout: writes a partial report that says so (the merge then
// names the node and why) and exits, so an epilog never holds a node for longer.
class Deadline {
 public:
  Deadline(const PartialOptions& options, PartialReport header) {
    if (options.timeout.count() <= 0) return;
    thread_ = std::thread([this, options, header = std::move(header)]() mutable {
      std::unique_lock lock(mutex_);
      if (cv_.wait_for(lock, options.timeout, [&] { return done_; })) return;
      header.problem = "the analysis did not finish within " + std::to_string(options.timeout.count()) +
                       " s (partial --timeout): this node's logs are not in the report";
      std::string err;
      write_atomically(options.output, encode(header, nullptr, options.output), err);
      std::fputs(err.c_str(), stderr);
      std::fprintf(stderr, "megatriage partial: %s\n", header.problem.c_str());
      std::fflush(nullptr);
      std::_Exit(kExitTimeout);
    });
  }
  ~Deadline() { finish(); }
  // The report is about to be written: the deadline no longer applies. Waits while the
  // deadline is writing its header (then the process ends there).
  void finish() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// ---------------------------------------------------------------- merge

struct ReadPartial {
  std::string name;
  PartialReport partial;
};

void usage(MergeOutcome& out, std::string message) {
  if (out.triage.usage_error) return;
  out.triage.usage_error = true;
  out.triage.usage_message = std::move(message);
}

std::string job_words(const PartialReport& p) {
  return "job " + (p.cluster.empty() ? p.job_id : p.cluster + ":" + p.job_id);
}

}  // namespace

std::string default_partial_host() {
  if (std::string node = env("SLURMD_NODENAME"); !node.empty()) return node;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  std::string host(name);
  return host.substr(0, host.find('.'));
}

int run_partial(const PartialOptions& options, std::string& err) {
  // An epilog runs as root: read only what the job's owner may read, write as the owner.
  if (::geteuid() == 0 && !env("SLURM_JOB_UID").empty() && env("SLURM_JOB_UID") != "0") {
    SlurmJobInfo owner;
    owner.uid = std::atol(env("SLURM_JOB_UID").c_str());
    if (!env("SLURM_JOB_GID").empty()) owner.gid = std::atol(env("SLURM_JOB_GID").c_str());
    std::string why;
    if (!drop_privileges(owner, why)) {
      err += "megatriage partial: " + why + "; refusing to read logs as root\n";
      return kExitUsage;
    }
  }
  PartialReport p;
  p.megatriage_version = megatriage_version();
  p.job_id = options.job_id;
  p.cluster = options.cluster;
  p.host = options.host;
  p.nodes = hostlist_expand(options.node_list);
  p.context_lines = options.context_lines;
  Deadline deadline(options, p);

  TriageOptions triage = options.triage;
  if (!options.host.empty()) triage.display_prefix = options.host + ":";
  AnalyzedLogs analyzed = analyze_logs(triage);
  if (analyzed.rules_missing) {
    err += "megatriage partial: " + analyzed.usage_message + "\n";
    return kExitUsage;
  }
  p.rules_fingerprint = rules_fingerprint(*analyzed.matcher);
  const std::vector<Diagnostic>& run = analyzed.run_diags.items();
  p.diagnostics.assign(run.begin() + static_cast<long>(analyzed.rules_diagnostics), run.end());
  if (analyzed.usage_error) p.problem = analyzed.usage_message;
  // What the one-scan command would look for beside these paths; the merge decides which are
  // the job's, against every node's log names.
  if (triage.scripts.empty())
    p.scripts = analyzed.scripts_beside ? std::move(*analyzed.scripts_beside)
                                        : scripts_beside(triage.paths, triage.display_prefix);
  p.files = std::move(analyzed.results);
  p.context.reserve(p.files.size());
  for (const FileResult& r : p.files) p.context.push_back(context_of(r, *analyzed.matcher, options));
  const bool readable = std::any_of(p.files.begin(), p.files.end(), has_text);
  deadline.finish();
  if (!write_atomically(options.output, encode(p, analyzed.matcher.get(), options.output), err))
    return kExitUsage;
  if (analyzed.usage_error) {
    err += "megatriage partial: " + analyzed.usage_message + "\n";
    return kExitUsage;
  }
  if (!readable) {
    err += "megatriage partial: " + nothing_readable_message(p.files) + " (the partial report says so)\n";
    return kExitUsage;
  }
  return kExitNoFailure;
}

std::size_t wait_for_partials(const std::string& dir, std::size_t count, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const std::size_t have = partial_files_in(dir).size();
    if (have >= count || std::chrono::steady_clock::now() >= end) return have;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

std::vector<std::string> partial_files_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!(ends_with(name, ".json") || ends_with(name, ".json.zst"))) continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

MergeOutcome run_merge(const MergeOptions& options) {
  MergeOutcome out;
  const TriageOptions& triage = options.triage;
  AnalyzedLogs analyzed;
  if (!triage.paths.empty()) {
    analyzed = analyze_logs(triage);
  } else {
    LoadedRules loaded = load_matcher(triage, analyzed.run_diags);
    analyzed.matcher = std::move(loaded.matcher);
    analyzed.rules_dirs = std::move(loaded.dirs);
    analyzed.rules_diagnostics = analyzed.run_diags.items().size();
    if (!loaded.problem.empty()) {
      analyzed.usage_error = analyzed.rules_missing = true;
      analyzed.usage_message = std::move(loaded.problem);
    }
  }
  if (analyzed.rules_missing) {
    out.triage = report_logs(std::move(analyzed), triage);
    return out;
  }
  const RuleMatcher& matcher = *analyzed.matcher;

  // Every partial report named, folders listed.
  std::vector<std::string> names;
  for (const std::string& input : options.inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<std::string> inside = partial_files_in(input);
      names.insert(names.end(), inside.begin(), inside.end());
    } else if (fs::exists(input, ec)) {
      names.push_back(input);
    } else {
      usage(out, "no such partial report or folder: " + input);
      return out;
    }
  }
  std::vector<ReadPartial> partials;
  DiagnosticSink merge_diags;
  const std::string fingerprint = rules_fingerprint(matcher);
  // Read and parsed on --jobs threads (parsing JSON is most of a merge's time), used in order.
  struct Parsed {
    std::string read_error;
    PartialParse parse;
  };
  std::vector<Parsed> parsed(names.size());
  const unsigned threads = triage.jobs ? triage.jobs : std::max(1u, std::thread::hardware_concurrency());
  for_each_index(threads, names.size(), [&](std::size_t i) {
    DiagnosticSink reading;
    std::optional<std::string> bytes = read_whole_file(names[i], names[i], kMaxPartialBytes, reading);
    if (!bytes) {
      parsed[i].read_error = "cannot read " + names[i] + (reading.empty() ? "" : ": " + reading.items().front().message);
      return;
    }
    parsed[i].parse = partial_from_json(*bytes, matcher, names[i], /*with_context=*/false);
  });
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!parsed[i].read_error.empty()) {
      usage(out, parsed[i].read_error);
      return out;
    }
    PartialParse& parse = parsed[i].parse;
    if (!parse.partial) {
      usage(out, parse.error);
      return out;
    }
    for (Diagnostic& d : parse.diagnostics) merge_diags.add(std::move(d));
    if (!parse.partial->rules_fingerprint.empty() && parse.partial->rules_fingerprint != fingerprint)
      merge_diags.add(Severity::Warning, "merge.rules-differ",
                      names[i] + " was written with other rules (megatriage " + parse.partial->megatriage_version +
                          "): its lines were matched by those",
                      names[i], 0, "write and merge partial reports with the same megatriage and --rules");
    partials.push_back({names[i], std::move(*parse.partial)});
  }
  parsed.clear();
  // One job: the first partial report that names its job is the reference.
  const PartialReport* named = nullptr;
  for (const ReadPartial& r : partials) {
    if (r.partial.job_id.empty()) continue;
    if (named == nullptr) {
      named = &r.partial;
      continue;
    }
    if (r.partial.job_id != named->job_id || r.partial.cluster != named->cluster) {
      const ReadPartial& first = *std::find_if(partials.begin(), partials.end(),
                                               [&](const ReadPartial& x) { return &x.partial == named; });
      usage(out, "partial reports of different jobs: " + first.name + " is of " + job_words(first.partial) + ", " +
                     r.name + " of " + job_words(r.partial) + "; merge one job's reports at a time");
      return out;
    }
  }
  out.partials = static_cast<int>(partials.size());

  // The files: those read here first (already in display order), then each partial's. Sorted
  // by display path as the walk sorts them, so file ids are those of one scan of every file.
  struct Source {
    FileResult result;
    std::string host;  // whose file: identities compare only on one host
  };
  std::vector<Source> all;
  for (FileResult& r : analyzed.results) all.push_back({std::move(r), std::string()});
  std::vector<Diagnostic> walked;
  // Where each file's context lines are: which report, which file of it. Read for the root's
  // file alone, once the root is known.
  auto kept = std::make_shared<std::unordered_map<std::string, std::pair<std::string, std::size_t>>>();
  for (ReadPartial& r : partials) {
    PartialReport& p = r.partial;
    if (!p.problem.empty())
      merge_diags.add(Severity::Warning, "merge.node-problem",
                      (p.host.empty() ? r.name : "node " + p.host) + ": " + p.problem, r.name, 0,
                      "its logs are missing from this report");
    for (Diagnostic& d : p.diagnostics) walked.push_back(std::move(d));
    for (std::size_t i = 0; i < p.files.size(); ++i) {
      (*kept)[p.files[i].file.display_path] = {r.name, i};
      all.push_back({std::move(p.files[i]), p.host});
    }
    // The emptied results still take their size each: 9,000 of them are megabytes.
    p.files.clear();
    p.files.shrink_to_fit();
  }
  // The batch scripts beside the logs: those read here, then each report's in turn. A script
  // every node sees (shared storage) is one script, named as the first report names it.
  std::vector<FoundScript> scripts;
  if (!triage.paths.empty())
    scripts = analyzed.scripts_beside ? std::move(*analyzed.scripts_beside) : scripts_beside(triage.paths);
  analyzed.scripts_beside.reset();  // moved from; the report reads `scripts` (found_scripts)
  std::set<std::pair<std::string, std::optional<std::string>>> seen_scripts;
  for (const FoundScript& f : scripts) seen_scripts.insert({f.path, f.text});
  for (ReadPartial& r : partials)
    for (FoundScript& f : r.partial.scripts)
      if (seen_scripts.insert({f.path, f.text}).second) scripts.push_back(std::move(f));
  std::stable_sort(walked.begin(), walked.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.path, a.code) < std::tie(b.path, b.code);
  });
  for (Diagnostic& d : walked) analyzed.run_diags.add(std::move(d));
  std::stable_sort(all.begin(), all.end(), [](const Source& a, const Source& b) {
    return a.result.file.display_path < b.result.file.display_path;
  });
  // The same file twice (two partial reports of one node that overlap, a log read here and
  // there): kept once, as a walk keeps it.
  std::set<std::string> seen_paths;
  std::set<std::tuple<std::string, std::uint64_t, std::uint64_t>> seen_files;
  std::vector<FileResult> results;
  results.reserve(all.size());
  for (Source& s : all) {
    FileResult& r = s.result;
    const bool same_path = !seen_paths.insert(r.file.display_path).second;
    const bool same_file =
        r.file.sized && !seen_files.insert({s.host, r.file.device, r.file.inode}).second;
    if (same_path || same_file) {
      analyzed.run_diags.add(Severity::Info, "discover.duplicate",
                             "'" + r.file.display_path + "' is the same file as one listed before; skipped",
                             r.file.display_path);
      continue;
    }
    const auto id = static_cast<FileId>(results.size());
    r.file.id = id;
    for (Event& e : r.events) e.origin.file = id;
    results.push_back(std::move(r));
  }
  all.clear();
  all.shrink_to_fit();
  analyzed.results = std::move(results);

  // Nodes of the job that sent nothing.
  std::vector<std::string> expected;
  std::set<std::string> present;
  for (const ReadPartial& r : partials) {
    present.insert(r.partial.host);
    for (const std::string& n : r.partial.nodes) expected.push_back(n);
  }
  for (const std::string& list : options.nodes)
    for (const std::string& n : hostlist_expand(list)) expected.push_back(n);
  // One diagnostic for all of them (the sink folds a code's repeats), naming them.
  std::set<std::string> named_once;
  std::vector<std::string> missing;
  for (const std::string& node : expected)
    if (!present.count(node) && named_once.insert(node).second) missing.push_back(node);
  if (!missing.empty()) {
    constexpr std::size_t kNamed = 32;
    std::string names;
    for (std::size_t i = 0; i < missing.size() && i < kNamed; ++i) names += (i ? ", " : "") + missing[i];
    if (missing.size() > kNamed) names += " and " + std::to_string(missing.size() - kNamed) + " more";
    merge_diags.add(Severity::Warning, "merge.missing-node",
                    "no partial report from " +
                        (missing.size() == 1 ? "node " : std::to_string(missing.size()) + " nodes: ") + names +
                        ": the logs only they could read are not in this report",
                    "", 0, "look at their epilog's output (slurmd log), or run megatriage partial there by hand");
  }
  for (Diagnostic& d : merge_diags.take()) analyzed.run_diags.add(std::move(d));
  if (analyzed.results.empty() && partials.empty() && !analyzed.usage_error) {
    analyzed.usage_error = true;
    analyzed.usage_message = "no partial report found in " +
                             (options.inputs.empty() ? std::string("the arguments") : options.inputs.front());
  }
  TriageOptions with_kept = triage;
  with_kept.found_scripts = std::move(scripts);
  with_kept.kept_context = [kept](const std::string& path) -> std::optional<std::vector<ContextLine>> {
    auto it = kept->find(path);
    if (it == kept->end()) return std::nullopt;
    DiagnosticSink ignored;
    std::optional<std::string> bytes = read_whole_file(it->second.first, it->second.first, kMaxPartialBytes, ignored);
    // A report that changed or went away since: no context rather than another file's lines.
    if (!bytes) return std::vector<ContextLine>{};
    return partial_context_from_json(*bytes, it->second.second).value_or(std::vector<ContextLine>{});
  };
  out.triage = report_logs(std::move(analyzed), with_kept);
  return out;
}

}  // namespace megatriage
