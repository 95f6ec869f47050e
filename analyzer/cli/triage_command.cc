// `megatriage [PATH...]`, the default command: flags, the report's destination and colour, the
// exit code. The analysis itself is run_triage (app/triage.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/rules_lookup.h"
#include "app/triage.h"
#include "base/exit_codes.h"
#include "base/run_cache.h"
#include "base/version.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "render/render.h"

namespace megatriage {
namespace {

const char* kExamples = R"(
Examples:
  megatriage logs/                      triage every file under logs/ (text report)
  megatriage --format json -o r.json logs/   JSON report for CI
  megatriage --format markdown logs/ >> "$GITHUB_STEP_SUMMARY"   summary of a CI job
  megatriage --format html -o r.html logs/   one page: root cause, its log lines, rank timeline
  megatriage logs/job-123.err logs/job-123.out
  megatriage --job 123 logs/            logs/ holds several jobs: report on job 123
  zcat job.err.gz | megatriage -        read standard input
  megatriage --rules ./site-rules logs/ add or override rules
  megatriage rules check [--rules DIR]  validate rule files and their samples
  megatriage rules list                 every rule in use and the file it came from
  megatriage lint job.sbatch            check a batch script against the runbook's launch rules
  megatriage watch --job 1234 --cancel logs/   report (and cancel) as soon as the cause is known
  megatriage --script job.sbatch logs/  triage, with the script's findings among the checks

Environment: MEGATRIAGE_RULES_PATH, MEGATRIAGE_RULES_DIR, XDG_CONFIG_HOME (rules, above);
MEGATRIAGE_CACHE_DIR (the cache of checked rule files; off: none); NO_COLOR; COLUMNS.
Manual: man megatriage

Exit codes: 0 no failure found, 1 failure found and reported, 2 usage error, nothing readable
(only binary or empty files) or no rules loaded, 3 internal error (a bug: please report it).
)";

// The report is written: what the run built (results of every file, compiled rules, the report)
// dies with the process. Freeing it object by object costs more CPU than rendering the report
// on a 9,000-file job. Builds that check for leaks (sanitizers, fuzzing) free as usual.
int exit_without_freeing(int rc) {
#ifdef MEGATRIAGE_CHECK_LEAKS
  return rc;
#else
  std::fflush(nullptr);
  std::_Exit(rc);
#endif
}

}  // namespace

int triage_command(int argc, char** argv) {
  CLI::App app{"megatriage: why did this Megatron-LM / SLURM job die? Reads every rank's logs and "
               "reports the root cause, the symptoms it explains and what to check.",
               "megatriage"};
  app.footer(std::string(kSubcommandsHelp) + kRulesSearchPathHelp + kExamples);
  TriageOptions options;
  options.paths.clear();
  options.cache = &RunCache::from_environment();
  std::string format = "text", output, color = "auto";
  bool no_prefilter = false;
  app.add_option("paths", options.paths, "Log files or directories (default: logs)");
  add_format_flag(app, format,
                  "Report format: text, json, html (one self-contained page), markdown (a CI job summary) "
                  "or github (Actions annotations)",
                  {"text", "json", "html", "markdown", "github"});
  add_output_flag(app, output);
  add_jobs_flag(app, options.jobs);
  // One directory per --rules, so `--rules DIR logs/` leaves logs/ a path.
  add_rules_flag(app, options.rules_dirs,
                 "Extra rules directory; later ones override rules with the same id (repeatable)", false);
  add_color_flag(app, color);
  ReportFlags report_flags;
  add_report_flags(app, report_flags);
  app.add_option("--script", options.scripts,
                 "The job's batch script: its launch problems join the checks (default: a "
                 "*.sbatch/*.slurm beside the log directory)")
      ->allow_extra_args(false);
  std::string job_id;
  bool all_jobs = false;
  auto* job_flag = app.add_option("--job", job_id,
                                  "When the logs hold several jobs (logs/%x-%j.out): report on this one "
                                  "(default: the newest)");
  app.add_flag("--all-jobs", all_jobs, "When the logs hold several jobs: one report per job, newest first")
      ->excludes(job_flag);
  app.add_flag("--follow-symlinks", options.follow_symlinks_outside,
               "Follow symlinks that point outside the given directories");
  app.add_flag("--no-prefilter", no_prefilter, "Debug: match every line with the full rule set")->group("");
  bool no_progress = false;
  app.add_flag("--no-progress", no_progress,
               "No progress line on stderr (shown only when stderr is a terminal and the scan "
               "takes over a second)");
  app.add_option("--progress-after-ms", options.progress_after_ms, "Test: progress line delay")
      ->check(CLI::Range(0, 3600000))
      ->group("");
  app.add_flag("--builtin-search", options.builtin_search,
               "Test/bench: the built-in trigger search even when built with Vectorscan")
      ->group("");
  bool timings = false;
  app.add_flag("--timings", timings, "Profiling: phase wall times on stderr")->group("");
  app.add_option("--chunk-bytes", options.analyze.chunk_bytes,
                 "Test: chunk size of the parallel search of one large file")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))  // offsets are 32-bit
      ->group("");
  AnalyzeOptions& limits = options.analyze;
  add_limit_flags(app, limits);
  std::string version = version_details();
  version.pop_back();  // CLI11 ends the line itself
  app.set_version_flag("--version", version);
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  if (options.paths.empty()) options.paths.push_back("logs");
  if (all_jobs) options.job.pick = JobPick::All;
  if (!job_id.empty()) {
    options.job.pick = JobPick::Asked;
    options.job.ids = {job_id};
  }
  options.prefilter = !no_prefilter;
  options.context_lines = context_lines(app, report_flags, format);
  options.rank_timeline = format == "html";
  if (format == "html" && all_jobs) {
    std::cerr << "megatriage: --format html shows one job; use --job ID (--all-jobs works with text, json, markdown and github)\n";
    return kExitUsage;
  }
  options.progress = !no_progress && isatty(STDERR_FILENO);
  limits.split.buffer_bytes = std::max(limits.split.buffer_bytes, limits.split.max_line_bytes + 2);

  TriageOutcome outcome = run_triage(options);
  if (outcome.usage_error) {
    std::cerr << "megatriage: " << outcome.usage_message << "\n";
    return kExitUsage;
  }

  auto render_start = std::chrono::steady_clock::now();
  std::string rendered;
  ReportOutput out(output, "megatriage");
  bool written = false;  // the report went to `out` while it was rendered
  const TextStyle style = text_style(report_flags, wants_color(color, output.empty() && isatty(STDOUT_FILENO)),
                                     output.empty() ? STDOUT_FILENO : -1);
  bool any_failure = outcome.report.root_cause.has_value();
  if (all_jobs) {
    // One report per job: the envelope even for one job, so a script reads one shape.
    std::vector<const Report*> reports{&outcome.report};
    for (const Report& r : outcome.more_reports) {
      reports.push_back(&r);
      any_failure = any_failure || r.root_cause.has_value();
    }
    if (format == "json") {
      rendered = render_json_jobs(reports);
    } else if (format == "markdown" || format == "github") {
      // One summary (or set of annotations) per job, each saying which job it is about.
      for (std::size_t k = 0; k < reports.size(); ++k)
        rendered += (k > 0 && format == "markdown" ? "\n" : "") +
                    (format == "markdown" ? render_markdown(*reports[k]) : render_github(*reports[k]));
    } else {
      rendered = render_text_jobs(reports, style);
    }
  } else if (format == "json") {
    // Written as it is made: a big job's JSON lists every file (megabytes).
    render_json_streamed(outcome.report, [&](std::string_view piece) { return out.write(piece); });
    written = true;
  } else if (format == "markdown") {
    rendered = render_markdown(outcome.report);
  } else if (format == "github") {
    rendered = render_github(outcome.report);
  } else if (format == "html") {
    rendered = render_html(outcome.report);
  } else {
    rendered = render_text(outcome.report, style);
  }
  if (timings) {
    double render_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - render_start).count();
    std::fprintf(stderr,
                 "timings: walk %.3f s, rules+search compile %.3f s (beside the walk), analyse %.3f s, "
                 "report %.3f s, render %.3f s\n",
                 outcome.walk_s, outcome.compile_s, outcome.analyze_s, outcome.report_s, render_s);
  }
  if (!written) out.write(rendered);
  if (!out.finish()) return kExitUsage;
  return exit_without_freeing(any_failure ? kExitFailure : kExitNoFailure);
}

}  // namespace megatriage
