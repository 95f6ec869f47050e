// Batch-script findings (driver): lint the job's scripts and add what they find to the root
// cause's checks, with a reason when a finding can explain the failure by itself. The lint
// rules themselves are lint/lint.*.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/script_discovery.h"
#include "base/diagnostics.h"
#include "match/knowledge_tables.h"
#include "model/report.h"

namespace megatriage {

/// Reads each script as `megatriage lint` does (lint/script_file.h: a directory, FIFO, binary,
/// empty, unreadable or too large file, or one that is no shell script, is a warning in `diags`
/// with the reader's code and is skipped), lists it in `report.scripts`, and when there is a
/// root cause adds each finding (not notes, not suppressed ones) as a failed check before the
/// rule's advice, and a reason when the `lint_rules` table (rules/lint.json) says the finding
/// can explain the root cause's category by itself. `tables` must hold `lint_rules` and
/// `gpu_generations`. Filesystem checks of the work tree are off: it lives on the cluster, not
/// where the report is made.
void add_script_findings(Report& report, const std::vector<std::string>& scripts, const KnowledgeTables& tables,
                         DiagnosticSink& diags);

/// The same for scripts found beside the logs and already read (app/script_discovery.h, or a
/// partial report's): each listed as its name. A script without text is skipped.
void add_found_script_findings(Report& report, const std::vector<FoundScript>& scripts, const KnowledgeTables& tables);

/// The same for a batch script SLURM printed (`sacct --batch-script`, `scontrol write
/// batch_script JOB -`), listed as `name`: lines before its `#!` or first `#SBATCH` (sacct's
/// "Batch Script for N" header) are dropped, so finding lines are the script's own. Text that
/// is no shell script is a `lint.not-a-script` warning.
void add_script_text_findings(Report& report, const std::string& name, std::string_view text,
                              const KnowledgeTables& tables, DiagnosticSink& diags);

}  // namespace megatriage
