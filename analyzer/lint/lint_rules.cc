// Lint rules: the table of what each launch-script defect can cause once the job runs.

#include "lint/lint_rules.h"

#include <algorithm>

namespace megatriage {

namespace {

// A launch that misses the work tree or its venv imports the wrong code or none: an import
// failure. Rendezvous settings that differ or point nowhere show up as NCCL/c10d errors. Ranks
// that do not match the GPUs per node make the parallel sizes disagree with the world: a shape
// failure. The rest (CUDA_DEVICE_MAX_CONNECTIONS, node-local paths) explain no category alone.
constexpr std::string_view kImport[] = {"import"};
constexpr std::string_view kNccl[] = {"nccl"};
constexpr std::string_view kShape[] = {"shape"};

constexpr LintRule kLintRules[] = {
    {"lint.bare-torchrun", kImport},
    {"lint.cuda-device-max-connections", {}},
    {"lint.launcher-args", kNccl},
    {"lint.master-addr", kNccl},
    {"lint.no-cd-worktree", kImport},
    {"lint.no-venv", kImport},
    {"lint.node-local-path", {}},
    {"lint.nproc-vs-gpus", kShape},
    {"lint.ntasks-per-node", kNccl},
};

}  // namespace

std::span<const LintRule> lint_rules() { return kLintRules; }

bool lint_finding_explains(std::string_view lint_rule, std::string_view category) {
  for (const LintRule& r : kLintRules) {
    if (r.id == lint_rule) return std::find(r.explains.begin(), r.explains.end(), category) != r.explains.end();
  }
  return false;
}

}  // namespace megatriage
