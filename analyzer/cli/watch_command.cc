// `megatriage watch [PATH...] [--job ID] [--cancel]`: flags of the follow mode; the polling and
// the report are run_watch (app/watch.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "app/watch.h"
#include "base/exit_codes.h"
#include "base/run_cache.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "render/render.h"

namespace megatriage {

int watch_command(int argc, char** argv) {
  CLI::App app{"Follow a running job's logs and report the root cause as soon as it is known",
               "megatriage watch"};
  app.footer(R"(
Without --job it runs until a root cause is known or --timeout passes. With --job, a missing
PATH whose folder exists is waited for (SLURM writes the job's files when it starts), and a
failed squeue is asked again after --interval, doubled each time (at most 60 s, 6 retries).
Exit codes: 0 the job ended and its logs show no failure, 1 root cause found and reported,
2 usage error (bad flag, a path that does not exist, no rules loaded) or the job ended with
nothing readable, 3 internal error, 4 --timeout passed with no root cause, 5 squeue kept failing.
)");
  WatchOptions options;
  options.triage.paths.clear();
  options.triage.cache = &RunCache::from_environment();
  std::string format = "text";
  app.add_option("paths", options.triage.paths, "Log files or directories")->default_str("logs");
  app.add_option("--job", options.job_id, "SLURM job id: stop when the job ends");
  app.add_flag("--cancel", options.cancel, "scancel the job once the root cause is known (needs --job)");
  app.add_option("--interval", options.interval_s, "Seconds between polls")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  app.add_option("--nccl-grace", options.nccl_grace_s,
                 "Seconds NCCL-only evidence waits for an earlier cause")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  app.add_option("--timeout", options.timeout_s, "Give up after this many seconds (0: never; exit 4)")
      ->check(CLI::Range(0.0, 31536000.0))
      ->capture_default_str();
  // One directory per --rules, as in the default command: the paths after it stay paths.
  add_rules_flag(app, options.triage.rules_dirs, kRulesFlagHelp, false);
  add_format_flag(app, format, "Report format (default: text)");
  ReportFlags report_flags;
  add_report_flags(app, report_flags);
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  options.triage.context_lines = report_flags.context_lines;
  options.text = text_style(report_flags, false, STDOUT_FILENO);
  // A report redirected into a batch job's output file is read later, elsewhere: the locale's
  // glyphs only decide on a terminal.
  if (!isatty(STDOUT_FILENO)) options.text.ascii = false;
  if (options.cancel && options.job_id.empty()) {
    std::cerr << "megatriage watch: --cancel needs --job JOBID\n";
    return kExitUsage;
  }
  if (options.triage.paths.empty()) options.triage.paths.push_back("logs");
  options.json = format == "json";
  return run_watch(options, std::cout, std::cerr);
}

}  // namespace megatriage
