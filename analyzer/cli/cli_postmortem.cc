// `megatriage postmortem` command line (CLI11): flags and exit codes; the work is in postmortem.cc.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/postmortem.h"

int postmortem_command(int argc, char** argv) {
  CLI::App app{"Post-mortem of a SLURM job: asks sacct/scontrol about it, finds its logs, reports "
               "the root cause and writes megatriage-<jobid>.json next to the job's log.",
               "megatriage postmortem"};
  app.footer(R"(
JOBID defaults to $SLURM_JOB_ID (EpilogSlurmctld). Array tasks: 123_4. Run as root (epilog,
strigger), logs are read and the report written as the job's user.
Exit codes: 0 no failure, 1 failure found and reported, 2 usage error or job not found.
)");
  megatriage::PostmortemOptions options;
  app.add_option("jobid", options.job_id, "Job id (default: $SLURM_JOB_ID)");
  app.add_option("--logs", options.logs_dir, "Read these logs instead of finding the job's own");
  app.add_option("--report-dir", options.report_dir,
                 "Where megatriage-<jobid>.json goes (default: the directory of the job's log)");
  app.add_option("--format", options.format, "What goes to stdout")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--rules", options.rules_dirs, "Extra rules directory (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  const char* no_color = std::getenv("NO_COLOR");
  options.color = isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
  std::string out, err;
  int rc = megatriage::run_postmortem(options, out, err);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  std::cerr << err;
  return rc;
}
