// The driver: wires the stages, owns the worker pool, builds the Report. The only place (with
// main.cc) allowed to stop a run. The pieces it wires live elsewhere: year resolution and the
// clock-skew check in decide/, batch-script discovery and findings in app/script_*.
#pragma once

#include <memory>
#include <string>
#include <functional>
#include <optional>
#include <vector>

#include "app/job_selection.h"
#include "app/script_discovery.h"
#include "extract/extract.h"
#include "match/rule_matcher.h"
#include "model/report.h"
#include "scan/trigger_scan.h"

namespace megatriage {

/// `merge`: the raw lines a partial report kept around the possible roots of the file of this
/// display path (app/partial_report.h); nullopt for a file this process read itself.
using KeptContext = std::function<std::optional<std::vector<ContextLine>>(const std::string& display_path)>;

struct TriageOptions {
  std::vector<std::string> paths{"logs"};
  std::vector<std::string> rules_dirs;   // extra --rules directories, applied after the default
  std::vector<std::string> scripts;      // --script: the job's batch script(s); empty: look for
                                         // *.sbatch / *.slurm beside the log directories
  unsigned jobs = 0;                     // 0: hardware threads
  bool prefilter = true;                 // hidden debug switch for invariance tests
  bool builtin_search = false;           // hidden: the built-in trigger search even with Vectorscan
  bool follow_symlinks_outside = false;
  bool progress = false;                 // a progress line on stderr (the caller checks it is a tty)
  int progress_after_ms = 1000;          // ... from this long after the scan starts
  std::size_t context_lines = 3;         // --context: raw lines each side of the root (0: none)
  const RunCache* cache = nullptr;       // start-up work to skip (the CLI's: from the environment)
  JobRequest job;                        // several jobs in the logs: which to report on (--job, --all-jobs)
  bool rank_timeline = false;            // fill Report::rank_timeline (--format html draws it)
  std::string display_prefix;            // `partial --host`: put before every display path ("node012:")
  KeptContext kept_context;              // `merge`: context lines of files read elsewhere
  // `merge`: the batch scripts found beside the logs of every partial report (and --logs);
  // none: look beside `paths`. Unused with --script.
  std::optional<std::vector<FoundScript>> found_scripts;
  AnalyzeOptions analyze;
};

struct TriageOutcome {
  Report report;
  // JobPick::All: the reports of the other jobs, newest first after `report` (the newest).
  std::vector<Report> more_reports;
  bool usage_error = false;   // nothing readable / a named path missing / no rules
  bool rules_missing = false;  // ... the usage error is that the rules could not be loaded
  std::string usage_message;
  // Wall seconds of the serial and parallel phases (hidden --timings, for profiling).
  double walk_s = 0, compile_s = 0, analyze_s = 0, report_s = 0;
  // What the analysis built and the report no longer needs: per-file results, compiled rules
  // and search. Kept here, not freed inside run_triage, so that a one-shot command line run can
  // leave them to the process exit (on a 9,000-file job freeing them costs more CPU than
  // rendering the report; see main.cc).
  struct Leftovers {
    std::vector<FileResult> results;
    std::unique_ptr<RuleMatcher> matcher;
    std::unique_ptr<TriggerScanner> triggers;
  };
  std::unique_ptr<Leftovers> leftovers;
};

TriageOutcome run_triage(const TriageOptions& options);

/// The first half of run_triage, up to "analyze one file" for every file: the walk, the rules,
/// the analysis and the duplicates dropped. `megatriage partial` stops here.
struct AnalyzedLogs {
  std::vector<FileResult> results;  // in file-id order
  DiagnosticSink run_diags;         // the rules', the walk's, duplicates
  std::size_t rules_diagnostics = 0;  // how many of run_diags come first from the rules
  std::unique_ptr<RuleMatcher> matcher;
  std::unique_ptr<TriggerScanner> triggers;
  std::vector<std::string> rules_dirs;
  bool usage_error = false, rules_missing = false;  // as TriageOutcome's
  std::string usage_message;
  double walk_s = 0, compile_s = 0, analyze_s = 0;
  // The batch scripts beside TriageOptions::paths (scripts_beside, named with display_prefix),
  // listed beside the walk rather than on the report's critical path; none when the options
  // name the scripts (`scripts` or `found_scripts`).
  std::optional<std::vector<FoundScript>> scripts_beside;
};
AnalyzedLogs analyze_logs(const TriageOptions& options);

/// The second half: the job-wide stages on `analyzed.results` (whatever read them: this
/// process, or partial reports written elsewhere), one report per job as options.job asks.
/// `megatriage merge` starts here.
TriageOutcome report_logs(AnalyzedLogs analyzed, const TriageOptions& options);

/// Compiled rules and where they came from.
struct LoadedRules {
  std::unique_ptr<RuleMatcher> matcher;
  std::vector<std::string> dirs;  // the default directory, then options.rules_dirs
  std::string problem;            // why these rules cannot back an answer (app/rules_lookup.h);
                                  // empty when they can
};

/// The built-in rules plus options.rules_dirs, compiled. Problems with rules are diagnostics in
/// `diags`; the matcher holds the rules that loaded.
LoadedRules load_matcher(const TriageOptions& options, DiagnosticSink& diags);

/// Everything after "analyze one file": years, timeline, root cause, checks, symptoms, file list
/// and diagnostics (run-level `run_diags` first). Shared by the one-shot run and the watcher.
/// `listed_beside`: scripts_beside(options.paths) when the caller listed them already.
Report build_report(std::vector<FileResult>& results, const RuleMatcher& matcher,
                    const TriageOptions& options, DiagnosticSink& run_diags,
                    const std::vector<FoundScript>* listed_beside = nullptr);

}  // namespace megatriage
