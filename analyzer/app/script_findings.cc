// Lint glue: the batch script's findings as checks and reasons of the root cause.
#include "app/script_findings.h"

#include <algorithm>
#include <optional>

#include "decide/runbook_checks.h"
#include "lint/lint.h"
#include "lint/lint_rules.h"
#include "lint/script_file.h"

namespace megatriage {

namespace {

void add_findings(Report& report, const std::string& name, std::string_view text, const KnowledgeTables& tables) {
  report.scripts.push_back(name);
  if (!report.root_cause) return;
  LintOptions lint_options;
  lint_options.check_filesystem = false;  // the work tree lives on the cluster, not here
  lint_options.texts = &tables.lint_rules;  // the findings' words come with the rules
  lint_options.gpus = &tables.gpu_generations;
  for (const auto& f : lint_script(text, lint_options)) {
    // A note says what the script does not show; the checks already weigh what the logs show.
    if (f.note || f.suppressed) continue;
    auto& r = *report.root_cause;
    // Findings go before the rule's advice, which always comes last.
    const auto advice = std::count_if(r.checks.begin(), r.checks.end(),
                                      [](const CheckResult& c) { return c.advice; });
    r.checks.insert(r.checks.end() - static_cast<long>(advice),
                    CheckResult{f.rule, f.why, CheckStatus::Failed,
                                name + ":" + std::to_string(f.line) + ": " + f.fix, false});
    if (lint_finding_explains(f.rule, category_name(r.category), tables.lint_rules))
      r.reasons.push_back("the batch script can explain it: " + f.rule + " at " + name + ":" +
                          std::to_string(f.line));
  }
  // The same finding on two lines or in two scripts: ids stay unique (`lint.x`, `lint.x.2`).
  if (report.root_cause) give_checks_unique_ids(report.root_cause->checks);
}

}  // namespace

void add_script_findings(Report& report, const std::vector<std::string>& scripts, const KnowledgeTables& tables,
                         DiagnosticSink& diags) {
  for (const auto& path : scripts) {
    std::optional<std::string> text = read_batch_script(path, path, diags);
    if (text) add_findings(report, path, *text, tables);
  }
}

void add_found_script_findings(Report& report, const std::vector<FoundScript>& scripts, const KnowledgeTables& tables) {
  for (const FoundScript& script : scripts)
    if (script.text) add_findings(report, script.name, *script.text, tables);
}

void add_script_text_findings(Report& report, const std::string& name, std::string_view text,
                              const KnowledgeTables& tables, DiagnosticSink& diags) {
  // sacct prints "Batch Script for 5" and a rule of dashes before the script.
  for (std::size_t at = 0; at < text.size();) {
    const std::string_view line = text.substr(at, text.find('\n', at) - at);
    if (line.starts_with("#!") || line.starts_with("#SBATCH")) {
      text.remove_prefix(at);
      break;
    }
    const std::size_t next = text.find('\n', at);
    at = next == std::string_view::npos ? text.size() : next + 1;
  }
  if (!looks_like_batch_script(text)) {
    diags.add(Severity::Warning, "lint.not-a-script",
              "the batch script SLURM gave (" + name + ") is not a shell script; not linted", name);
    return;
  }
  add_findings(report, name, text, tables);
}

}  // namespace megatriage
