// Batch-script discovery (driver): which sbatch scripts belong to the logs being triaged.
// Finds them only; reading and linting them is script_findings.*.
#pragma once

#include <string>
#include <vector>

namespace megatriage {

/// `given` when not empty (--script); else every *.sbatch / *.slurm regular file in a directory
/// argument of `log_paths` or in its parent (sbatch is usually run from the folder holding
/// logs/), sorted per directory, each path once. Paths are as the arguments spell them.
/// Unreadable directories are skipped silently: a missing script only means fewer checks.
std::vector<std::string> find_scripts(const std::vector<std::string>& given,
                                      const std::vector<std::string>& log_paths);

}  // namespace megatriage
