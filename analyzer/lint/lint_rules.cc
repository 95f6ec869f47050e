// Lint rules: the lookup in the `lint_rules` table (rules/lint.json says why each entry explains
// what it does).

#include "lint/lint_rules.h"

#include <algorithm>

namespace megatriage {

bool lint_finding_explains(std::string_view lint_rule, std::string_view category,
                           const std::vector<LintRuleEntry>& lint_rules) {
  for (const LintRuleEntry& r : lint_rules) {
    if (r.id == lint_rule) return std::find(r.explains.begin(), r.explains.end(), category) != r.explains.end();
  }
  return false;
}

}  // namespace megatriage
