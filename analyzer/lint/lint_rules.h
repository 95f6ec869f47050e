// Lint rules: what a `lint.*` finding can mean for a failed job. The triage report lists every
// finding of the job's batch script among the root cause's checks; a finding whose rule can
// explain the root cause's category is also given as a reason. Which rule explains which category
// is data (`rules/lint.json`, the `lint_rules` table); the findings are made in lint.cc.
#pragma once

#include <string_view>
#include <vector>

#include "match/knowledge_tables.h"

namespace megatriage {

/// True when the `lint_rules` table says a finding of `lint_rule` can by itself explain a
/// failure of report category `category` (`import`, `nccl`, `shape`, ...). False for a rule or
/// category the table does not list.
bool lint_finding_explains(std::string_view lint_rule, std::string_view category,
                           const std::vector<LintRuleEntry>& lint_rules);

}  // namespace megatriage
