// Batch-script discovery (driver): which sbatch scripts belong to the logs being triaged.
// A script beside the logs is the job's only when its #SBATCH output names match the logs'
// names; `--script` is taken as given. Finds them only; reading and linting them is
// script_findings.*.
#pragma once

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

/// `given` when not empty (--script). Else the candidates, every *.sbatch / *.slurm regular
/// file in a directory argument of `log_paths` or in its parent (sbatch is usually run from the
/// folder holding logs/), sorted per directory, each path once; a candidate is kept only when
/// one of `log_files` matches its #SBATCH --output or --error pattern (SLURM's default
/// `slurm-%j.out` when it has none; %x is its --job-name, else its file name, as sbatch does).
/// A candidate left out, or one that cannot be read, is an Info `lint.script-not-attached` in
/// `diags` that says why. Paths are as the arguments spell them.
std::vector<std::string> find_scripts(const std::vector<std::string>& given,
                                      const std::vector<std::string>& log_paths,
                                      const std::vector<std::string>& log_files, DiagnosticSink& diags);

}  // namespace megatriage
