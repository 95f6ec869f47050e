// Batch-script discovery (driver): which sbatch scripts belong to the logs being triaged.
// A script beside the logs is the job's only when its #SBATCH output names match the logs'
// names (`--script` is taken as given: triage.cc). Finds and reads them, so that a partial
// report can carry them to a merge; linting them is script_findings.*.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.h"

namespace megatriage {

/// Whether sbatch's file-name pattern `pattern` (`logs/%x-%j.out`) can have written the file
/// `log_path`: their last path components are compared, `%j %A %a %t %n` standing for digits,
/// `%x` for `job_name` (any name when empty), `%N %u %J %s` for any text without `/`, `%%` for
/// `%`; a zero-pad width (`%4j`) is allowed.
bool output_pattern_matches(std::string_view pattern, std::string_view job_name, std::string_view log_path);

/// A batch script found beside the logs, read: what deciding whether it is the job's and linting
/// it take, so that `megatriage partial` can carry it to a merge on another machine.
struct FoundScript {
  std::string path;                  // as opened
  std::string name;                  // as reported: `path`, after `partial --host`'s prefix
  std::optional<std::string> text;   // none: it could not be read, `problems` says why
  std::vector<Diagnostic> problems;  // the reader's (lint/script_file.h), naming `name`
};

/// Every *.sbatch / *.slurm regular file in a directory argument of `log_paths` or in its
/// parent (sbatch is usually run from the folder holding logs/), sorted per directory, each
/// path once, read as `megatriage lint` reads a script. Paths are as the arguments spell them;
/// `display_prefix` goes before each name.
std::vector<FoundScript> scripts_beside(const std::vector<std::string>& log_paths,
                                        const std::string& display_prefix = "");

/// Of `found`, the scripts that are the job's: those one of `log_files` fits by its #SBATCH
/// --output or --error pattern (SLURM's default `slurm-%j.out` when it has none; %x is its
/// --job-name, else its file name, as sbatch does). A script left out, or one that could not be
/// read, is an Info `lint.script-not-attached` in `diags` that says why.
std::vector<FoundScript> scripts_of_logs(const std::vector<FoundScript>& found,
                                         const std::vector<std::string>& log_files, DiagnosticSink& diags);

}  // namespace megatriage
