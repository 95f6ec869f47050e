// `megatriage postmortem [JOBID]`: flags of the SLURM hook; asking SLURM, finding the logs and
// writing the report are run_postmortem (app/postmortem.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "app/postmortem.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"

namespace megatriage {

int postmortem_command(int argc, char** argv) {
  CLI::App app{"Post-mortem of a SLURM job: asks sacct/scontrol about it, finds its logs, reports "
               "the root cause and writes megatriage-<jobid>.json next to the job's log.",
               "megatriage postmortem"};
  app.footer(R"(
JOBID defaults to $SLURM_JOB_ID (EpilogSlurmctld). Array tasks: 123_4. Run as root (epilog,
strigger), logs are read and the report written as the job's user.
Without accounting (sacct fails) the job's facts come from scontrol show job, else the --logs
alone are triaged (no slurm block); sacct's own error is shown either way.
Exit codes: 0 no failure, 1 failure found and reported, 2 usage error, no rules loaded or job
not found, 3 internal error (a bug: please report it).
)");
  PostmortemOptions options;
  app.add_option("jobid", options.job_id, "Job id (default: $SLURM_JOB_ID)");
  app.add_option("--logs", options.logs_dir, "Read these logs instead of finding the job's own");
  app.add_option("--partials", options.partials_dir,
                 "A folder of the nodes' partial reports (megatriage partial), merged with the logs read "
                 "here (default: WorkDir/megatriage/JOBID when it exists)");
  app.add_option("--report-dir", options.report_dir,
                 "Where megatriage-<jobid>.json goes (default: the directory of the job's log)");
  add_format_flag(app, options.format, "What goes to stdout: text, json or html (one page)", {"text", "json", "html"});
  add_rules_flag(app, options.rules_dirs, kRulesFlagHelp, true);
  ReportFlags report_flags;
  add_report_flags(app, report_flags);
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  options.context_lines = context_lines(app, report_flags, options.format);
  options.verbose = report_flags.verbose;
  if (report_flags.width > 0) options.width = report_flags.width;
  // Text on a terminal is coloured; --color is the default command's alone.
  options.color = wants_color("auto", isatty(STDOUT_FILENO));
  std::string out, err;
  int rc = run_postmortem(options, out, err);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  std::cerr << err;
  return rc;
}

}  // namespace megatriage
