// `megatriage lint --format json|sarif`: the findings of several scripts as data, for CI. JSON
// is our own shape (schema/lint.schema.json); SARIF 2.1.0 is what code scanning (GitHub, GitLab)
// reads to show each finding on its script's line. The text form stays in lint/lint.h.
#pragma once

#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "lint/lint.h"
#include "match/knowledge_tables.h"

namespace megatriage {

/// One path given to lint: its findings, or why it was not linted.
struct LintedScript {
  std::string path;
  bool linted = false;                 // false: `problems` say why (missing, binary, not a script)
  std::vector<LintFinding> findings;   // suppressed ones included, marked
  std::vector<Diagnostic> problems;    // what reading it found
};

/// The JSON lint report: `schema_version`, `megatriage_version`, `scripts` (each path's
/// findings, suppressed ones marked, and its problems), `summary` (LintTally's counts).
std::string render_lint_json(const std::vector<LintedScript>& scripts, const LintTally& tally);

/// One SARIF 2.1.0 log with one run: the driver megatriage with the rules of `rules` (the
/// loaded lint_rules table), a result per shown finding (suppressed ones left out, as in the
/// text), a notification per path not linted.
std::string render_lint_sarif(const std::vector<LintedScript>& scripts, const std::vector<LintRuleEntry>& rules);

}  // namespace megatriage
