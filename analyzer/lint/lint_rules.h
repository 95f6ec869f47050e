// Lint rules: what each `lint.*` finding can mean for a failed job. The triage report lists every
// finding of the job's batch script among the root cause's checks; a finding whose rule can
// explain the root cause's category is also given as a reason. The findings themselves are made
// in lint.cc; this file holds only what they mean.
#pragma once

#include <span>
#include <string_view>

namespace megatriage {

struct LintRule {
  std::string_view id;                        ///< `lint.kebab-name`, as in LintFinding::rule
  std::span<const std::string_view> explains; ///< report categories it can cause by itself
};

/// Every lint rule lint_script() can report, sorted by id.
std::span<const LintRule> lint_rules();

/// True when a finding of `lint_rule` can by itself explain a failure of report category
/// `category` (`import`, `nccl`, `shape`, ...). False for an unknown rule or category.
bool lint_finding_explains(std::string_view lint_rule, std::string_view category);

}  // namespace megatriage
