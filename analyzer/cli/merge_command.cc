// `megatriage merge FILE|DIR...`: flags of the job-wide half of a multi-node triage, and the
// report's destination; reading the partial reports and the stages are run_merge (app/partial.h).
#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "app/partial.h"
#include "base/exit_codes.h"
#include "base/run_cache.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "render/render.h"
#include "slurm/slurm_job.h"

namespace megatriage {

int merge_command(int argc, char** argv) {
  // The reports' results are parsed on --jobs threads and kept until the end. A malloc arena per
  // thread left ~10 MB of the freed parse memory of one arena unusable to the other (tree d in
  // 1,024 reports: 71 MB against 60 MB with one arena, and no slower: parsing is not bound by
  // the allocator's lock).
  mallopt(M_ARENA_MAX, 1);
  CLI::App app{"Merge the partial reports of a job's nodes (megatriage partial) into the job's report: "
               "the same report as megatriage on every node's files at once.",
               "megatriage merge"};
  app.footer(R"(
Examples:
  megatriage merge $SHARED/mt/$SLURM_JOB_ID              a folder of partial reports (*.json, *.json.zst)
  megatriage merge --format json -o job.json node1.json node2.json.zst
A node of the job (as the partial reports list them, or --nodes) without a report is a
merge.missing-node diagnostic. Reports of different jobs, or of an unknown format version, are a
usage error.
Exit codes: 0 no failure found, 1 failure found and reported, 2 usage error (see above; also
nothing readable in any report, or no rules), 3 internal error.
)");
  MergeOptions options;
  options.triage.paths.clear();
  options.triage.cache = &RunCache::from_environment();
  std::string format = "text", output, color = "auto";
  app.add_option("reports", options.inputs, "Partial reports, or folders holding them")->required();
  add_format_flag(app, format,
                  "Report format: text, json, html (one self-contained page), markdown (a CI job summary) "
                  "or github (Actions annotations)",
                  {"text", "json", "html", "markdown", "github"});
  add_output_flag(app, output);
  add_jobs_flag(app, options.triage.jobs);
  add_rules_flag(app, options.triage.rules_dirs, "Extra rules directory, as given to megatriage partial (repeatable)",
                 false);
  add_color_flag(app, color);
  ReportFlags report_flags;
  add_report_flags(app, report_flags);
  app.add_option("--script", options.triage.scripts, "The job's batch script: its launch problems join the checks")
      ->allow_extra_args(false);
  app.add_option("--nodes", options.nodes, "Nodes expected besides those the reports list (SLURM hostlist; repeatable)")
      ->allow_extra_args(false);
  app.add_option("--logs", options.triage.paths, "Log files or folders readable here, triaged with the reports")
      ->allow_extra_args(false);
  long wait_s = 0;
  app.add_option("--wait", wait_s,
                 "Wait up to this many seconds until each folder holds a report per node of --nodes "
                 "(default $SLURM_JOB_NODELIST): Epilogs may still be writing")
      ->check(CLI::Range(0L, 3600L));
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  if (wait_s > 0) {
    std::vector<std::string> lists = options.nodes;
    if (const char* env = std::getenv("SLURM_JOB_NODELIST"); lists.empty() && env != nullptr) lists.push_back(env);
    std::size_t expected = 0;
    for (const std::string& list : lists) expected += hostlist_count(list);
    for (const std::string& input : options.inputs)
      wait_for_partials(input, expected, std::chrono::seconds(wait_s));
  }
  options.triage.context_lines = context_lines(app, report_flags, format);
  options.triage.rank_timeline = format == "html";
  MergeOutcome merged = run_merge(options);
  if (merged.triage.usage_error) {
    std::cerr << "megatriage merge: " << merged.triage.usage_message << "\n";
    return kExitUsage;
  }
  const Report& report = merged.triage.report;
  const TextStyle style = text_style(report_flags, wants_color(color, output.empty() && isatty(STDOUT_FILENO)),
                                     output.empty() ? STDOUT_FILENO : -1);
  std::string rendered = format == "json"       ? render_json(report)
                         : format == "markdown" ? render_markdown(report)
                         : format == "github"   ? render_github(report)
                         : format == "html"     ? render_html(report)
                                                : render_text(report, style);
  if (!write_report(rendered, output, "megatriage merge")) return kExitUsage;
  return report.root_cause ? kExitFailure : kExitNoFailure;
}

}  // namespace megatriage
