// `megatriage lint`: checks an sbatch script against the runbook's multi-node launch rules
// before it is submitted (the "launch half" of the runbook; the log pipeline is the other half).
// Reads the script like a careful reader, not a shell: joins continuations, follows quotes,
// `bash -c` bodies and literal variables. It never runs, sources or expands commands, and
// touches the file system only for the optional `.venv` check.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "match/knowledge_tables.h"

namespace megatriage {

/// One defect in a script. Owns its strings.
struct LintFinding {
  std::uint64_t line = 0;  ///< 1-based line of the offending command (first line of a
                           ///< continued command); 0 when about the whole script.
  std::string rule;        ///< stable id `lint.kebab-name`
  std::string why;         ///< what is wrong and why it breaks multi-node jobs
  std::string fix;         ///< the exact change to make
};

struct LintOptions {
  /// Look for `<worktree>/.venv` when the `cd` target is an absolute path that exists here.
  bool check_filesystem = true;
  /// The words of the findings: the loaded rules' `lint_rules` table (rules/lint.json), which
  /// must outlive the call. Null, or a table without a finding's variant, gives that finding
  /// a stand-in text that names the missing entry; the finding itself is still reported.
  const std::vector<LintRuleEntry>* texts = nullptr;
};

/// Lints an sbatch script against the runbook's launch rules. Never throws. Findings are
/// sorted by line, then rule id; at most one finding per defect.
std::vector<LintFinding> lint_script(std::string_view script, const LintOptions& options = {});

/// `path:line: rule: why` + an indented `fix:` line per finding (plain text, ends with a
/// newline; `path: rule: why` when the line is 0). Empty when there are no findings.
std::string render_lint(const std::string& path, const std::vector<LintFinding>& findings);

}  // namespace megatriage
