#include "app/triage.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iterator>
#include <optional>
#include <thread>

#include "app/readable_input.h"
#include "app/root_context.h"
#include "app/rules_lookup.h"
#include "app/script_discovery.h"
#include "app/script_findings.h"
#include "base/fork_join.h"
#include "base/heap_setup.h"
#include "base/progress.h"
#include "base/sort_unique.h"
#include "decide/checks.h"
#include "decide/classify.h"
#include "decide/clock_skew.h"
#include "decide/headline.h"
#include "decide/log_year.h"
#include "decide/rank_timeline.h"
#include "decide/root_cause.h"
#include "decide/timeline.h"
#include "input/discover.h"
#include "input/reader.h"
#include "match/rule_matcher.h"
#include "match/rules.h"

namespace megatriage {
namespace {

// Per-file boundary: whatever escapes a stage becomes an internal diagnostic for that file only.
// `file` moves into the result (it is left as it was when analysis throws).
FileResult analyze_guarded(SourceFile& file, const RuleMatcher& matcher,
                           const AnalyzeOptions& options) {
  try {
    return analyze_file(std::move(file), matcher, options);
  } catch (const std::exception& ex) {
    FileResult r;
    r.file = file;
    // analyze_file set it on its own copy; standard input cannot be looked at again.
    if (!file.is_stdin) r.file.compression = sniff_compression(file.path);
    r.diagnostics.push_back({Severity::Error, "internal.exception",
                             std::string("analysis of this file stopped: ") + ex.what(),
                             file.display_path, 0, "please report this with the file", 1});
    return r;
  }
}

// Runs `work(i)` for every index of `order` on up to `jobs` threads (this one included), in
// that order; analyze_guarded keeps a file's exception to that file, and anything else that
// escapes reaches the caller after every thread has stopped (base/fork_join.h).
template <typename Work>
void run_pool(const std::vector<std::size_t>& order, unsigned jobs, Work work) {
  for_each_index(jobs, order.size(), [&](std::size_t k) { work(order[k]); });
}

// Two rounds. First every file that cannot be read in chunks, sized ones largest first (one
// big archive must not start last and hold up the run), then the rest in list order (sizes
// unknown until opened). Then the plain files big enough for chunks, largest first, which get
// the cores that would otherwise idle (one file is one task) to read and search them ahead of
// their reader: at most 7 helpers each, which bounds the chunks in flight (2 x helpers + 2 per
// file). A file's size is learnt from the walk's stat or, when opened in the first round, from
// open_source's.
std::vector<FileResult> analyze_all(std::vector<SourceFile>& files, const RuleMatcher& matcher,
                                    AnalyzeOptions options, unsigned jobs, bool progress,
                                    int progress_after_ms) {
  ScanCounters counters;
  std::optional<ProgressLine> line;
  if (progress) {
    std::uint64_t total = 0;
    for (const auto& f : files) total += f.size_bytes;
    options.bytes_done = &counters.bytes_done;
    line.emplace(counters, files.size(), total, stderr, std::chrono::milliseconds(progress_after_ms));
  }
  const bool can_chunk = options.triggers != nullptr && options.triggers->ok();
  auto chunkable = [&](const SourceFile& f) {
    return can_chunk && f.sized && f.size_bytes > 2 * options.chunk_bytes &&
           sniff_compression(f.path) == Compression::None;
  };
  std::vector<FileResult> results(files.size());
  std::vector<std::size_t> first, chunked;
  for (std::size_t i = 0; i < files.size(); ++i) (chunkable(files[i]) ? chunked : first).push_back(i);
  std::stable_sort(first.begin(), first.end(), [&](std::size_t a, std::size_t b) {
    if (files[a].sized != files[b].sized) return files[a].sized;
    return files[a].size_bytes > files[b].size_bytes;
  });
  // Each file moves into its result; one left for the second round is taken from there.
  const bool huge_pages = files.size() >= kFilesForHugePages;
  auto analyze = [&](std::size_t i, const AnalyzeOptions& opts) {
    if (huge_pages) ask_huge_pages_for_thread_heap();  // where its files' results will live
    results[i] = analyze_guarded(results[i].deferred ? results[i].file : files[i], matcher, opts);
    if (results[i].deferred) return;
    if (results[i].file.compression != Compression::None)
      counters.bytes_done.fetch_add(results[i].file.size_bytes, std::memory_order_relaxed);
    counters.files_done.fetch_add(1, std::memory_order_relaxed);
  };
  AnalyzeOptions first_round = options;
  first_round.defer_chunkable = can_chunk;
  first_round.chunk_helpers = 0;
  run_pool(first, jobs, [&](std::size_t i) { analyze(i, first_round); });
  for (std::size_t i : first)
    if (results[i].deferred) chunked.push_back(i);
  if (chunked.empty()) return results;

  auto size_of = [&](std::size_t i) {
    return results[i].deferred ? results[i].file.size_bytes : files[i].size_bytes;
  };
  std::stable_sort(chunked.begin(), chunked.end(), [&](std::size_t a, std::size_t b) {
    return size_of(a) > size_of(b) || (size_of(a) == size_of(b) && a < b);
  });
  const auto big = static_cast<unsigned>(std::min<std::size_t>(chunked.size(), jobs));
  options.chunk_helpers = big < jobs ? std::min(7u, (jobs - 1) / big) : 0;
  run_pool(chunked, jobs, [&](std::size_t i) { analyze(i, options); });
  return results;
}

// The same file under two names (hard links, a file symlink into the tree, overlapping
// arguments) would count every event twice: keep its first name in display order, as the walk
// does for files it stat'ed. Files listed without a stat are identified by the stat taken when
// they were opened. Later files' ids close the gap.
void drop_duplicate_files(std::vector<FileResult>& results, DiagnosticSink& diags) {
  std::vector<FileIdentity> ids(results.size());
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].file.sized) ids[i] = {results[i].file.device, results[i].file.inode};
  const std::vector<bool> repeated = find_repeats(ids);
  if (std::find(repeated.begin(), repeated.end(), true) == repeated.end()) return;
  std::vector<FileResult> kept;
  kept.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    FileResult& r = results[i];
    if (repeated[i]) {
      diags.add(Severity::Info, "discover.duplicate",
                "'" + r.file.display_path + "' is the same file as one listed before; skipped",
                r.file.display_path);
      continue;
    }
    const auto id = static_cast<FileId>(kept.size());
    if (r.file.id != id) {
      r.file.id = id;
      for (Event& e : r.events) e.origin.file = id;
    }
    kept.push_back(std::move(r));
  }
  results = std::move(kept);
}

FileSummary summarize_file(const FileResult& r) {
  FileSummary s;
  s.path = r.file.display_path;
  s.compression = compression_name(r.file.compression);
  s.size_bytes = r.file.size_bytes;
  s.bytes = r.bytes;
  s.lines = r.lines;
  s.events = r.events.size();
  s.rank = r.file.hint.rank;
  s.local_rank = r.file.hint.local_rank;
  s.task = r.file.hint.task;
  s.skipped = r.binary || r.unopened || r.own_report;
  return s;
}

// Threads for the stages after analysis: --jobs, as the analysis workers have finished; one for
// a small job, where starting a thread costs more than it saves.
// --jobs, or every hardware thread when not given: the walk, the rules, the analysis and the
// report all use this many.
unsigned job_count(const TriageOptions& options) {
  return options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
}

unsigned report_threads(const TriageOptions& options, const std::vector<FileResult>& results) {
  constexpr std::size_t kParallelFrom = 2048;  // files plus events
  std::size_t work = results.size();
  for (const auto& r : results) work += r.events.size();
  if (work < kParallelFrom) return 1;
  return job_count(options);
}

// Every rank an event names, sorted: what "every rank" means when the logs print no world size.
std::vector<int> ranks_named(const std::vector<TimelineEntry>& timeline) {
  std::vector<int> ranks;
  for (const TimelineEntry& t : timeline)
    if (t.event->who.rank >= 0) ranks.push_back(t.event->who.rank);
  sort_unique(ranks);
  return ranks;
}

std::string ordering_summary(const std::vector<FileResult>& results) {
  std::uint64_t stamped = 0, lines = 0;
  for (const auto& r : results) { stamped += r.stamped_lines; lines += r.lines; }
  if (lines == 0) return "no lines";
  if (stamped == 0) return "no timestamps in any file: ordered by file and line";
  return std::to_string(stamped) + " of " + std::to_string(lines) +
         " lines carry a timestamp; unstamped events are placed between their stream's stamps";
}

}  // namespace

LoadedRules load_matcher(const TriageOptions& options, DiagnosticSink& diags) {
  LoadedRules loaded;
  loaded.dirs = rules_search_path(options.rules_dirs);
  const unsigned threads = job_count(options);
  KnowledgeTables tables;
  loaded.matcher =
      std::make_unique<RuleMatcher>(load_rules(loaded.dirs, diags, threads, options.cache, &tables), diags);
  loaded.matcher->set_tables(std::move(tables));
  loaded.matcher->set_prefilter_enabled(options.prefilter);
  loaded.problem = rules_unusable_message(loaded.dirs, loaded.matcher->rules().size(), diags.items());
  return loaded;
}

Report build_report(std::vector<FileResult>& results, const RuleMatcher& matcher,
                    const TriageOptions& options, DiagnosticSink& run_diags,
                    const std::vector<FoundScript>* listed_beside) {
  const unsigned threads = report_threads(options, results);
  Report report;
  report.rule_count = matcher.rules().size();

  // Per file, in slices over the threads: the year, then the timeline's keys, while the file's
  // events are in cache.
  const std::optional<int> year = job_year(results);
  TimelineMerge merge(results);
  for_each_slice(
      threads, results.size(), [&](std::size_t i) { return results[i].events.size() + 1; },
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          resolve_year(results[i], year);
          merge.add_file(i);
        }
      });

  // The root cause and its symptoms need the timeline; the clock check, the batch scripts, the
  // file list and the files' diagnostics do not, and are made beside them. The clock check
  // writes only the files' diagnostics, which the timeline side never reads.
  std::optional<SourceFile> root_file;  // where --context reads its lines back from
  std::uint64_t root_offset = 0;
  auto timeline_side = [&] {
    const std::vector<TimelineEntry> timeline = merge.merge();
    std::optional<Finding> finding = select_root_cause(timeline, matcher);
    if (finding) {
      root_file = timeline[finding->location].file->file;
      root_offset = timeline[finding->location].event->origin.offset;
      report.verdict = Verdict::Failure;
      report.root_cause = classify_root(*finding, timeline, matcher);
      JobFacts job = collect_job_facts(results, finding->who.rank);
      evaluate_checks(*report.root_cause, *timeline[finding->index].event, job, timeline, matcher);
    } else {
      report.verdict = Verdict::NoFailure;
    }
    report.symptoms = group_symptoms(timeline, finding, matcher);
    if (finding) {
      const Event& root = *timeline[finding->index].event;
      const Rule* rule = root.matches.empty()
                             ? nullptr
                             : &matcher.rules()[static_cast<std::size_t>(root.matches.front().rule_index)];
      compose_headline(*report.root_cause, rule, report.symptoms, ranks_named(timeline));
    }
    if (options.rank_timeline)
      report.rank_timeline = build_rank_timeline(timeline, finding, matcher, report.symptoms, results);
  };
  std::vector<FoundScript> scripts;  // found beside the logs, and the job's
  std::vector<Diagnostic> file_diagnostics;
  DiagnosticSink script_diags;  // the timeline side may write run_diags meanwhile
  auto file_side = [&] {
    report_clock_skew(results);
    report.ordering = ordering_summary(results);
    report.files.reserve(results.size());
    std::vector<std::string> log_files;  // a script beside them is the job's when it names them
    log_files.reserve(results.size());
    for (auto& r : results) {
      report.files.push_back(summarize_file(r));
      log_files.push_back(r.file.display_path);
      for (auto& d : r.diagnostics) file_diagnostics.push_back(std::move(d));
    }
    // --script is taken as given, and read with the findings below.
    if (options.scripts.empty()) {
      const std::vector<FoundScript>* found = options.found_scripts ? &*options.found_scripts : listed_beside;
      std::vector<FoundScript> listed;
      if (found == nullptr) found = &(listed = scripts_beside(options.paths));
      scripts = scripts_of_logs(*found, log_files, script_diags);
    }
  };
  run_beside(threads, timeline_side, file_side);
  for (auto& d : script_diags.take()) run_diags.add(std::move(d));
  if (report.root_cause)
    for (auto& d : untyped_value_diagnostics(*report.root_cause)) run_diags.add(std::move(d));
  add_script_findings(report, options.scripts, matcher.tables(), run_diags);
  add_found_script_findings(report, scripts, matcher.tables());
  if (report.root_cause && root_file) {
    // A file read on another node (`merge`): the lines its partial report kept around it.
    std::optional<std::vector<ContextLine>> kept;
    if (options.kept_context) kept = options.kept_context(root_file->display_path);
    report.root_cause->context =
        kept ? kept_context_lines(*kept, report.root_cause->line, options.context_lines)
             : read_context_lines(*root_file, report.root_cause->line, root_offset, options.context_lines,
                                  options.analyze.read, options.analyze.split);
  }
  report.diagnostics = run_diags.take();
  report.diagnostics.reserve(report.diagnostics.size() + file_diagnostics.size());
  for (auto& d : file_diagnostics) report.diagnostics.push_back(std::move(d));
  return report;
}

AnalyzedLogs analyze_logs(const TriageOptions& options) {
  AnalyzedLogs out;
  DiagnosticSink& run_diags = out.run_diags;
  DiagnosticSink discover_diags;
  std::string rules_problem;
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  const Clock::time_point start = Clock::now();
  DiscoverOptions dopts;
  dopts.follow_symlinks_outside = options.follow_symlinks_outside;
  dopts.threads = job_count(options);
  // The progress line needs the total size before the scan; otherwise open_source's stat is
  // the only one a file gets.
  dopts.stat_files = options.progress;
  DiscoveredSources discovered;
  // Compiling the rules and walking the tree are both serial; do them side by side (on two
  // threads whatever --jobs says: the walk's own threads wait on the disk, the compile does not).
  run_beside(
      2,
      [&] {
        discovered = discover_paths(options.paths, dopts, discover_diags);
        out.walk_s = seconds_since(start);
      },
      [&] {
        LoadedRules loaded = load_matcher(options, run_diags);
        out.matcher = std::move(loaded.matcher);
        out.rules_dirs = std::move(loaded.dirs);
        rules_problem = std::move(loaded.problem);
        out.triggers = make_trigger_scanner(*out.matcher, run_diags,
                                            options.builtin_search ? TriggerScanner::Engine::Builtin
                                                                   : TriggerScanner::Engine::Best,
                                            options.cache);
        out.compile_s = seconds_since(start);
        // The rules are ready long before the walk ends: list the scripts now, not on the
        // report's critical path.
        if (options.scripts.empty() && !options.found_scripts)
          out.scripts_beside = scripts_beside(options.paths, options.display_prefix);
      });
  out.rules_diagnostics = run_diags.items().size();
  for (auto& d : discover_diags.take()) run_diags.add(std::move(d));
  if (!rules_problem.empty()) {
    // Without its rules every answer would be unclassified, yet look confident: stop here.
    out.usage_error = out.rules_missing = true;
    out.usage_message = std::move(rules_problem);
    return out;
  }
  std::vector<SourceFile>& files = discovered.files;
  if (!discovered.missing.empty()) {
    out.usage_error = true;
    out.usage_message = missing_path_message(discovered.missing.back());
  }
  // `megatriage partial --host`: files named as that host's (node012:/tmp/...) before they are
  // read, so every diagnostic says the same.
  if (!options.display_prefix.empty())
    for (SourceFile& f : files) f.display_path = options.display_prefix + f.display_path;

  const unsigned jobs = job_count(options);
  AnalyzeOptions analyze = options.analyze;
  analyze.triggers = out.triggers.get();
  const Clock::time_point analyze_start = Clock::now();
  out.results = analyze_all(files, *out.matcher, analyze, jobs, options.progress, options.progress_after_ms);
  drop_duplicate_files(out.results, run_diags);
  out.analyze_s = seconds_since(analyze_start);
  return out;
}

TriageOutcome report_logs(AnalyzedLogs analyzed, const TriageOptions& options) {
  TriageOutcome out;
  out.walk_s = analyzed.walk_s;
  out.compile_s = analyzed.compile_s;
  out.analyze_s = analyzed.analyze_s;
  out.usage_error = analyzed.usage_error;
  out.rules_missing = analyzed.rules_missing;
  out.usage_message = std::move(analyzed.usage_message);
  if (out.rules_missing) return out;
  DiagnosticSink& run_diags = analyzed.run_diags;
  std::vector<FileResult>& results = analyzed.results;
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  // Nothing to read: no file found, or (files are opened only now) none could be opened, or
  // every one was binary (a core dump) or empty. A job that died before writing a line is not
  // a success, so this is not "no failure found".
  if (!out.usage_error && std::none_of(results.begin(), results.end(), has_text)) {
    out.usage_error = true;
    out.usage_message = nothing_readable_message(results);
  }
  const Clock::time_point report_start = Clock::now();
  // A logs/ folder that collects every job's output: one job's files (or each job's in turn).
  const unsigned threads = report_threads(options, results);
  JobSelection selection = select_jobs(std::move(results), options.job, options.paths, threads);
  if (!selection.usage_error.empty() && !out.usage_error) {
    out.usage_error = true;
    out.usage_message = selection.usage_error;
  }
  std::vector<FileResult> kept;
  const std::vector<Diagnostic> shared_diags = selection.reports.size() > 1 ? run_diags.items() : std::vector<Diagnostic>{};
  for (std::size_t k = 0; k < selection.reports.size(); ++k) {
    JobFiles& part = selection.reports[k];
    DiagnosticSink diags;
    for (Diagnostic& d : part.diagnostics) diags.add(std::move(d));
    if (k == 0) {
      for (Diagnostic& d : run_diags.take()) diags.add(std::move(d));
    } else {
      for (const Diagnostic& d : shared_diags) diags.add(d);
    }
    Report report = build_report(part.files, *analyzed.matcher, options, diags,
                                 analyzed.scripts_beside ? &*analyzed.scripts_beside : nullptr);
    report.rules_dirs = analyzed.rules_dirs;
    report.job = std::move(part.choice);
    (k == 0 ? out.report : out.more_reports.emplace_back()) = std::move(report);
    if (kept.empty()) {
      kept = std::move(part.files);
    } else {
      std::move(part.files.begin(), part.files.end(), std::back_inserter(kept));
    }
  }
  out.report_s = seconds_since(report_start);
  out.leftovers = std::make_unique<TriageOutcome::Leftovers>(
      TriageOutcome::Leftovers{std::move(kept), std::move(analyzed.matcher), std::move(analyzed.triggers)});
  return out;
}

TriageOutcome run_triage(const TriageOptions& options) { return report_logs(analyze_logs(options), options); }

}  // namespace megatriage
