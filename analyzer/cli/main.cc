// megatriage command line: flags, exit codes, output. Everything else lives in the stages.
#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>

#include "app/triage.h"
#include "app/watch.h"
#include "base/run_cache.h"
#include "lint/lint.h"
#include "match/rule_tags.h"
#include "match/rules.h"
#include "render/render.h"

namespace {

// Exit codes (README.md "Exit codes").
constexpr int kExitNoFailure = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

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

const char* kExamples = R"(
Examples:
  megatriage logs/                      triage every file under logs/ (text report)
  megatriage --format json -o r.json logs/   JSON report for CI
  megatriage logs/job-123.err logs/job-123.out
  megatriage --rules ./site-rules logs/ add or override rules
  megatriage rules check [--rules DIR]  validate rule files and their samples
  megatriage lint job.sbatch            check a batch script against the runbook's launch rules
  megatriage watch --job 1234 --cancel logs/   report (and cancel) as soon as the cause is known
  megatriage --script job.sbatch logs/  triage, with the script's findings among the checks

Exit codes: 0 no failure found, 1 failure found and reported, 2 usage error or nothing readable.
)";

int rules_check(int argc, char** argv) {
  CLI::App app{"Validate rule files and run every rule's samples", "megatriage rules check"};
  std::vector<std::string> dirs;
  app.add_option("--rules", dirs, "Extra rules directory (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  std::vector<std::string> all{megatriage::default_rules_dir()};
  all.insert(all.end(), dirs.begin(), dirs.end());
  megatriage::DiagnosticSink diags;
  auto rules = megatriage::load_rules(all, diags);
  megatriage::check_code_tags(rules, diags);  // a tag the code asks for that no rule carries
  int problems = 0;
  for (const auto& d : diags.items()) {
    if (d.severity == megatriage::Severity::Info) continue;
    ++problems;
    std::cerr << (d.path.empty() ? "" : d.path + ": ") << d.code << ": " << d.message << "\n";
  }
  std::cout << rules.size() << " rules loaded from " << all.size() << " director"
            << (all.size() == 1 ? "y" : "ies") << ", " << problems << " problem(s)\n";
  return problems == 0 ? 0 : 1;
}

// `megatriage lint SCRIPT...`: the runbook's launch rules. Exit 0 clean, 1 findings, 2 unreadable.
int lint_command(int argc, char** argv) {
  CLI::App app{"Check sbatch scripts against the runbook's launch rules", "megatriage lint"};
  std::vector<std::string> scripts;
  bool no_filesystem = false;
  app.add_option("scripts", scripts, "sbatch scripts")->required();
  app.add_flag("--no-filesystem", no_filesystem, "Do not look for <worktree>/.venv on this machine");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  megatriage::LintOptions options;
  options.check_filesystem = !no_filesystem;
  bool findings = false;
  for (const auto& path : scripts) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::cerr << "megatriage: cannot read " << path << "\n";
      return kExitUsage;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto found = megatriage::lint_script(text, options);
    findings = findings || !found.empty();
    std::cout << megatriage::render_lint(path, found);
  }
  return findings ? 1 : 0;
}

// `megatriage watch [PATH...] [--job ID] [--cancel]`: follow a running job's logs.
int watch_command(int argc, char** argv) {
  CLI::App app{"Follow a running job's logs and report the root cause as soon as it is known",
               "megatriage watch"};
  megatriage::WatchOptions options;
  options.triage.paths.clear();
  options.triage.cache = &megatriage::RunCache::from_environment();
  std::string format = "text";
  app.add_option("paths", options.triage.paths, "Log files or directories (default: logs)");
  app.add_option("--job", options.job_id, "SLURM job id: stop when the job ends");
  app.add_flag("--cancel", options.cancel, "scancel the job once the root cause is known (needs --job)");
  app.add_option("--interval", options.interval_s, "Seconds between polls")->check(CLI::Range(0.05, 3600.0));
  app.add_option("--nccl-grace", options.nccl_grace_s,
                 "Seconds NCCL-only evidence waits for an earlier cause")->check(CLI::Range(0.0, 86400.0));
  app.add_option("--timeout", options.timeout_s, "Give up after this many seconds (0: never)");
  app.add_option("--rules", options.triage.rules_dirs, "Extra rules directory (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--format", format, "Report format")->check(CLI::IsMember({"text", "json"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  if (options.cancel && options.job_id.empty()) {
    std::cerr << "megatriage watch: --cancel needs --job JOBID\n";
    return kExitUsage;
  }
  if (options.triage.paths.empty()) options.triage.paths.push_back("logs");
  options.json = format == "json";
  return megatriage::run_watch(options, std::cout, std::cerr);
}

}  // namespace

int postmortem_command(int argc, char** argv);  // cli_postmortem.cc

int main(int argc, char** argv) {
  // A run builds its results once and frees them at the end: keep freed memory for reuse
  // instead of returning it to the kernel page by page (each return costs page faults later).
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
  if (argc >= 2 && std::string(argv[1]) == "postmortem") return postmortem_command(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "lint") return lint_command(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "watch") return watch_command(argc - 1, argv + 1);
  if (argc >= 3 && std::string(argv[1]) == "rules" && std::string(argv[2]) == "check")
    return rules_check(argc - 2, argv + 2);

  CLI::App app{"megatriage: why did this Megatron-LM / SLURM job die? Reads every rank's logs and "
               "reports the root cause, the symptoms it explains and what to check.",
               "megatriage"};
  app.footer(kExamples);
  megatriage::TriageOptions options;
  options.paths.clear();
  options.cache = &megatriage::RunCache::from_environment();
  std::string format = "text", output, color = "auto";
  bool no_prefilter = false;
  app.add_option("paths", options.paths, "Log files or directories (default: logs)");
  app.add_option("--format", format, "Report format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("-o,--output", output, "Write the report to FILE instead of stdout");
  app.add_option("-j,--jobs", options.jobs, "Files analysed in parallel (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  // One directory per --rules, so `--rules DIR logs/` leaves logs/ a path.
  app.add_option("--rules", options.rules_dirs,
                 "Extra rules directory; later ones override rules with the same id (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--color", color, "Colour in the text report")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--script", options.scripts,
                 "The job's batch script: its launch problems join the checks (default: a "
                 "*.sbatch/*.slurm beside the log directory)")
      ->allow_extra_args(false);
  app.add_flag("--follow-symlinks", options.follow_symlinks_outside,
               "Follow symlinks that point outside the given directories");
  app.add_flag("--no-prefilter", no_prefilter, "Debug: match every line with the full rule set")
      ->group("");
  bool no_progress = false;
  app.add_flag("--no-progress", no_progress,
               "No progress line on stderr (shown only when stderr is a terminal and the scan "
               "takes over a second)");
  app.add_option("--progress-after-ms", options.progress_after_ms, "Test: progress line delay")
      ->check(CLI::Range(0, 3600000))->group("");
  app.add_flag("--builtin-search", options.builtin_search,
               "Test/bench: the built-in trigger search even when built with Vectorscan")
      ->group("");
  bool timings = false;
  app.add_flag("--timings", timings, "Profiling: phase wall times on stderr")->group("");
  app.add_option("--chunk-bytes", options.analyze.chunk_bytes,
                 "Test: chunk size of the parallel search of one large file")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))->group("");  // offsets are 32-bit
  // Caps (README "Robustness"): hitting one is a diagnostic with the figure, never a silent cut.
  megatriage::AnalyzeOptions& limits = options.analyze;
  app.add_option("--max-decompressed-bytes", limits.read.max_decompressed_bytes,
                 "Stop reading a compressed file after this many decompressed bytes")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 50))->group("Limits");
  app.add_option("--max-line-bytes", limits.split.max_line_bytes,
                 "Keep at most this many bytes of a line")
      ->check(CLI::Range(std::size_t{16}, std::size_t{64} << 20))->group("Limits");
  app.add_option("--max-frames", limits.traceback.max_frames,
                 "Frames kept per traceback block (the outermost few, the innermost rest)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))->group("Limits");
  app.add_option("--max-message-bytes", limits.traceback.max_text_bytes,
                 "Bytes kept of an exception line, its message and each frame field")
      ->check(CLI::Range(std::size_t{16}, std::size_t{16} << 20))->group("Limits");
  app.set_version_flag("--version", std::string("megatriage ") + MEGATRIAGE_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  if (options.paths.empty()) options.paths.push_back("logs");
  options.prefilter = !no_prefilter;
  options.progress = !no_progress && isatty(STDERR_FILENO);
  limits.split.buffer_bytes = std::max(limits.split.buffer_bytes, limits.split.max_line_bytes + 2);

  megatriage::TriageOutcome outcome = megatriage::run_triage(options);
  if (outcome.usage_error) {
    std::cerr << "megatriage: " << outcome.usage_message << "\n";
    return kExitUsage;
  }

  auto render_start = std::chrono::steady_clock::now();
  std::string rendered;
  if (format == "json") {
    rendered = megatriage::render_json(outcome.report);
  } else {
    megatriage::TextStyle style;
    bool to_terminal = output.empty() && isatty(STDOUT_FILENO);
    const char* no_color = std::getenv("NO_COLOR");
    style.color = color == "always" ||
                  (color == "auto" && to_terminal && (no_color == nullptr || *no_color == '\0'));
    rendered = megatriage::render_text(outcome.report, style);
  }
  if (timings) {
    double render_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - render_start).count();
    std::fprintf(stderr, "timings: walk %.3f s, rules+search compile %.3f s (beside the walk), analyse %.3f s, "
                 "report %.3f s, render %.3f s\n", outcome.walk_s, outcome.compile_s, outcome.analyze_s,
                 outcome.report_s, render_s);
  }
  if (output.empty()) {
    std::fwrite(rendered.data(), 1, rendered.size(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::cerr << "megatriage: cannot write the report to standard output: " << std::strerror(errno)
                << " (redirect it with -o FILE)\n";
      return kExitUsage;
    }
  } else {
    std::ofstream file(output, std::ios::binary | std::ios::trunc);
    file << rendered;
    file.close();
    if (!file) {
      std::cerr << "megatriage: cannot write " << output << "\n";
      return kExitUsage;
    }
  }
  return exit_without_freeing(outcome.report.root_cause ? kExitFailure : kExitNoFailure);
}
