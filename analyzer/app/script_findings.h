// Batch-script findings (driver): lint the job's scripts and add what they find to the root
// cause's checks, with a reason when a finding can explain the failure by itself. The lint
// rules themselves are lint/lint.*.
#pragma once

#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "model/report.h"

namespace megatriage {

/// Whether lint finding `lint_rule` can by itself explain a root cause of `category` (a bare
/// torchrun for an import error, a wrong MASTER_ADDR for an NCCL failure, ...).
bool script_finding_explains(Category category, const std::string& lint_rule);

/// Reads each script (an unreadable one is a `lint.script-unreadable` warning in `diags`),
/// lists it in `report.scripts`, and when there is a root cause adds each finding as a failed
/// check before the rule's advice. Filesystem checks of the work tree are off: it lives on the
/// cluster, not where the report is made.
void add_script_findings(Report& report, const std::vector<std::string>& scripts,
                         DiagnosticSink& diags);

}  // namespace megatriage
