// Lint glue: the batch script's findings as checks and reasons of the root cause.
#include "app/script_findings.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "decide/runbook_checks.h"
#include "lint/lint.h"
#include "lint/lint_rules.h"

namespace megatriage {

void add_script_findings(Report& report, const std::vector<std::string>& scripts,
                         const std::vector<LintRuleEntry>& lint_rules, DiagnosticSink& diags) {
  for (const auto& path : scripts) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      diags.add(Severity::Warning, "lint.script-unreadable", "cannot read the batch script", path);
      continue;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    report.scripts.push_back(path);
    if (!report.root_cause) continue;
    LintOptions lint_options;
    lint_options.check_filesystem = false;  // the work tree lives on the cluster, not here
    lint_options.texts = &lint_rules;       // the findings' words come with the rules
    for (const auto& f : lint_script(text, lint_options)) {
      auto& r = *report.root_cause;
      // Findings go before the rule's advice, which always comes last.
      const auto advice = std::count_if(r.checks.begin(), r.checks.end(),
                                        [](const CheckResult& c) { return c.advice; });
      r.checks.insert(r.checks.end() - static_cast<long>(advice),
                      CheckResult{f.rule, f.why, CheckStatus::Failed,
                                  path + ":" + std::to_string(f.line) + ": " + f.fix, false});
      if (lint_finding_explains(f.rule, category_name(r.category), lint_rules))
        r.reasons.push_back("the batch script can explain it: " + f.rule + " at " + path + ":" +
                            std::to_string(f.line));
    }
  }
  // The same finding on two lines or in two scripts: ids stay unique (`lint.x`, `lint.x.2`).
  if (report.root_cause) give_checks_unique_ids(report.root_cause->checks);
}

}  // namespace megatriage
