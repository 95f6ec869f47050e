// Batch-script findings (driver): lint the job's scripts and add what they find to the root
// cause's checks, with a reason when a finding can explain the failure by itself. The lint
// rules themselves are lint/lint.*.
#pragma once

#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "match/knowledge_tables.h"
#include "model/report.h"

namespace megatriage {

/// Reads each script (an unreadable one is a `lint.script-unreadable` warning in `diags`),
/// lists it in `report.scripts`, and when there is a root cause adds each finding as a failed
/// check before the rule's advice, and a reason when `lint_rules` (rules/lint.json) says the
/// finding can explain the root cause's category by itself. Filesystem checks of the work tree are off: it lives on the
/// cluster, not where the report is made.
void add_script_findings(Report& report, const std::vector<std::string>& scripts,
                         const std::vector<LintRuleEntry>& lint_rules, DiagnosticSink& diags);

}  // namespace megatriage
