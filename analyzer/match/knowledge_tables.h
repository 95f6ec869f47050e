// Knowledge tables: what rules/ knows besides log-line rules — GPU generations, the OOM phase of
// a traceback's frames, which launch-script finding can explain which failure category, the
// words of the root causes SLURM's own state gives the postmortem, and which runbook checks a
// root cause gets.
// rules.cc parses and validates them beside the rules (`rules.*` diagnostics); the stages that
// use them (checks, lint glue, the postmortem) hold the lookups. Plain data; no JSON here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.h"
#include "model/report.h"
#include "model/types.h"

namespace megatriage {

struct Rule;

/// The GPU generations the runbook's CUDA_DEVICE_MAX_CONNECTIONS rule distinguishes.
enum class GpuGeneration : std::uint8_t { Unknown, Older, Ampere, Hopper, Blackwell };

/// `older`, `ampere`, `hopper`, `blackwell`; empty for Unknown (the spelling in check texts and
/// the id of a `gpu_generations` entry).
std::string_view generation_name(GpuGeneration g);

/// The generation named `name`; false for an unknown name (and for the empty one).
bool parse_generation(std::string_view name, GpuGeneration& out);

/// One `gpu_generations` entry of `gpus.json`.
struct GpuGenerationEntry {
  GpuGeneration generation = GpuGeneration::Unknown;  // the entry's id
  int min_major = -1, max_major = -1;  // compute capability majors, inclusive; -1: none
  std::vector<std::string> models;     // substrings of the model name (`H100`, `GB200`)
  std::string source;                  // file:line
};

/// One `oom_phases` entry of `oom-phases.json`: a frame is in this phase when its function is
/// one of `functions` or its path contains one of `path_parts`.
struct OomPhaseEntry {
  std::string phase;  // the entry's id: `backward`, `optimizer`, ...
  std::vector<std::string> functions;
  std::vector<std::string> path_parts;
  std::string source;
};

/// The words of one variant of a lint finding: lint.cc decides which variant a defect is and
/// fills the `{placeholder}`s (is_lint_placeholder) with the script's values.
struct LintText {
  std::string variant;  // kebab-case key in the entry's `variants` (`sbatch-ntasks`)
  std::string why;
  std::string fix;
};

/// One `lint_rules` entry of `lint.json`: report categories a finding of `id` can explain
/// alone, and the words of each variant of the finding.
struct LintRuleEntry {
  std::string id;  // `lint.kebab-name`, as LintFinding::rule
  std::vector<std::string> explains;
  std::vector<LintText> variants;  // key order
  std::string source;
};

/// True for a `{name}` lint.cc fills in a lint text: value, nodes, path, count, variable,
/// assigned, assigned_line, gpus, gpu_option, gpu_line, missing, effects, arguments, flag,
/// flag_line, what, expanded, work_tree, setup, gpu, unknown. (`${NAME}` in a text is shell,
/// not a placeholder.)
bool is_lint_placeholder(std::string_view name);

/// The words of variant `variant` of finding `rule`; null when the table lacks the entry or
/// the variant (a user's override can drop either).
const LintText* find_lint_text(const std::vector<LintRuleEntry>& table, std::string_view rule,
                               std::string_view variant);

/// The ids of the `slurm_states` entries: the causes the postmortem takes from sacct's state.
/// Which one applies is decided in app/postmortem.cc; the table only holds their words.
namespace slurm_state {
inline constexpr std::string_view kNodeFail = "sacct.node-fail";
inline constexpr std::string_view kOutOfMemory = "sacct.out-of-memory";
inline constexpr std::string_view kTimeout = "sacct.timeout";
inline constexpr std::string_view kCancelled = "sacct.cancelled";
inline constexpr std::string_view kFailed = "sacct.failed";
}  // namespace slurm_state

/// True for one of the slurm_state ids above.
bool is_slurm_state_id(std::string_view id);

/// True for a `{name}` the postmortem fills in a `slurm_states` text: job (`job 19`), job_id,
/// nodes, limit (`elapsed 00:01:03 of a 00:01:00 limit`), state, exit_code, meaning (of the
/// state), who (the cancelling user), uid, where (the logs' candidate: file:line),
/// last_iteration, progress and at_iteration (the entry's own texts of those names).
bool is_slurm_state_placeholder(std::string_view name);

/// One `slurm_states` entry of `slurm-states.json`: the words of one sacct-decided cause.
/// Texts hold `{placeholder}`s (is_slurm_state_placeholder). An empty optional text is left out.
struct SlurmStateEntry {
  std::string id;  // one of slurm_state::k*
  Category category = Category::Unknown;
  std::string title;     // of a root cause sacct alone gives
  std::string explain;   // likewise; appended to the logs' cause where sacct confirms it
  std::vector<std::string> checks;
  std::string headline;
  std::string confirm_reason;    // optional: the reason added where the logs already say it
  std::string traceback_reason;  // optional: the reason added where a traceback is overruled
  std::string progress;          // optional: {progress}, where the last iteration is known
  std::string at_iteration;      // optional: {at_iteration}, likewise
  std::string source;
};

/// The entry `id` of `table`; null when there is none (a user's override can drop one).
const SlurmStateEntry* find_slurm_state(const std::vector<SlurmStateEntry>& table, std::string_view id);

/// When a `runbook_checks` entry applies to a root cause: every part given must hold (a part
/// left out holds).
struct CheckCondition {
  std::vector<Category> categories;    // the root's category is one of these
  std::vector<std::string> tags_any;   // the root's rule carries one of these tags
  std::vector<std::string> tags_none;  // ... and none of these
  std::vector<std::string> facts_any;  // one of these facts is known (job-wide or of the root)
  std::vector<std::string> frames_any; // a frame of the root's traceback has one in its path
  bool decided = false;                // only where the evaluation is not `unknown`
};

/// The evaluators a `runbook_checks` entry may name: `template` (its own status and detail
/// with `{fact}`/`{field}` placeholders), `divisible` (a fact divided by a product of facts),
/// and the built-in ones, whose figures need code (decide/check_evaluators.cc).
inline constexpr std::string_view kTemplateEvaluator = "template";
inline constexpr std::string_view kDivisibleEvaluator = "divisible";

/// True for a name the `evaluate` key may hold: the two above and every built-in evaluator.
bool is_check_evaluator(std::string_view name);

/// The built-in evaluators' names (decide/check_evaluators.cc implements each one).
std::span<const std::string_view> builtin_check_evaluators();

/// One `runbook_checks` entry of `checks.json`: a check the report evaluates for the root
/// causes its `when` names. Entries are evaluated in table order.
struct RunbookCheckEntry {
  std::string id;    // the check's id in the report: lower-case words joined by `_`
  std::string text;  // what to check, as the report shows it
  std::string evaluate;
  std::vector<CheckCondition> when;  // applies where any one holds; none: never (turned off)
  // `template`: the status and detail where every placeholder of `detail` has a value, else
  // `otherwise_*` (the check is left out where `has_otherwise` is false).
  CheckStatus status = CheckStatus::Unknown;
  std::string detail;
  bool has_otherwise = false;
  CheckStatus otherwise_status = CheckStatus::Unknown;
  std::string otherwise_detail;
  // `divisible`: dividend % (divisor_factor x product of divisors) == 0.
  std::string dividend;
  std::vector<std::string> divisors;
  long long divisor_factor = 1;
  std::string source;
};

/// Every table, in file order (which is lookup order: the first matching entry wins). A later
/// rules directory's entry with the same id replaces the earlier one in place.
struct KnowledgeTables {
  std::vector<GpuGenerationEntry> gpu_generations;
  std::vector<OomPhaseEntry> oom_phases;
  std::vector<LintRuleEntry> lint_rules;
  std::vector<SlurmStateEntry> slurm_states;
  std::vector<RunbookCheckEntry> runbook_checks;
};

/// One `rules.tag-not-carried` warning naming each tag a `runbook_checks` condition asks about
/// that no rule in `rules` carries (a typo, or a renamed tag: the condition can never hold);
/// returns how many there are. Run by `megatriage rules check`, as check_code_tags is.
int check_table_tags(const std::vector<Rule>& rules, const KnowledgeTables& tables, DiagnosticSink& diags);

}  // namespace megatriage
