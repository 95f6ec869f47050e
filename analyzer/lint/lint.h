// `megatriage lint`: checks an sbatch script against the runbook's multi-node launch rules
// before it is submitted (the "launch half" of the runbook; the log pipeline is the other half).
// Reads the script like a careful reader, not a shell: joins continuations, follows quotes,
// `bash -c` bodies and literal variables. It never runs, sources or expands commands, and
// touches the file system only for the optional `.venv` check.
#pragma once

#include <cstddef>
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
  /// Lower severity: what lint could not decide from the script (the GPUs or the parallel
  /// sizes it does not show). Shown, never a reason to fail.
  bool note = false;
  /// Turned off by a `# megatriage: disable=lint.<id>` comment (on the finding's line, or
  /// alone before the first command for the whole file) or by LintOptions::disabled.
  bool suppressed = false;
};

struct LintOptions {
  /// Look for `<worktree>/.venv` when the `cd` target is an absolute path that exists here.
  bool check_filesystem = true;
  /// The words of the findings: the loaded rules' `lint_rules` table (rules/lint.json), which
  /// must outlive the call. Null, or a table without a finding's variant, gives that finding
  /// a stand-in text that names the missing entry; the finding itself is still reported.
  const std::vector<LintRuleEntry>* texts = nullptr;
  /// The `gpu_generations` table (rules/gpus.json), for the GPU model a script names in
  /// `--gres`/`--gpus*`, its partition or its constraint. Null: the GPUs are unknown.
  const std::vector<GpuGenerationEntry>* gpus = nullptr;
  /// Rule ids (`lint.kebab-name`) whose findings are suppressed in every script (`--disable`).
  std::vector<std::string> disabled;
};

/// What a run of lint over several paths found, for the summary line.
struct LintTally {
  std::size_t scripts = 0;     ///< paths linted
  std::size_t findings = 0;    ///< findings, suppressed ones included (notes are not findings)
  std::size_t suppressed = 0;  ///< of those, turned off
  std::size_t notes = 0;       ///< notes shown (suppressed notes are not counted)
  std::size_t not_linted = 0;  ///< paths refused: unreadable, not a script, ...
  /// Counts one script's findings.
  void add(const std::vector<LintFinding>& found);
  /// The findings that make lint exit 1: shown, not notes.
  std::size_t failing() const { return findings - suppressed; }
};

/// Lints an sbatch script against the runbook's launch rules. Never throws. Findings are
/// sorted by line, then rule id; at most one finding per defect.
std::vector<LintFinding> lint_script(std::string_view script, const LintOptions& options = {});

/// `path:line: rule: why` + an indented `fix:` line per finding (plain text, ends with a
/// newline; `path: rule: why` when the line is 0); a note reads `path:line: note: rule: why`.
/// Suppressed findings are left out. Empty when nothing is shown.
std::string render_lint(const std::string& path, const std::vector<LintFinding>& findings);

/// `2 scripts, 0 findings` / `1 script, 1 finding (1 suppressed)`, then `, N notes` and
/// `, N paths not linted` when there are any; ends with a newline.
std::string render_lint_summary(const LintTally& tally);

}  // namespace megatriage
