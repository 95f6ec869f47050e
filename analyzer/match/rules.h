// Rules: classification knowledge as data. Loads `rules/*.json` (comments allowed), validates
// every rule (schema, RE2 compile, placeholders, needles, positive and negative samples) and
// records each problem as a `rules.*` diagnostic: a broken rule is skipped, the rest load.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "model/fact_registry.h"
#include "model/types.h"

namespace re2 {
class RE2;
}

namespace megatriage {

class RunCache;
struct KnowledgeTables;

/// What text a rule is matched against.
enum class AppliesTo : std::uint8_t {
  Line,       // any line body (after prefixes): NCCL WARN, c10 lines, srun/slurmstepd, agent
  Exception,  // a traceback's final exception text (type: message, continuation lines joined by '\n')
};

// RuleRole and role_name live in model/types.h: the report carries them too.

struct RuleSample {
  std::string text;
  std::map<std::string, std::string> fields;  // expected named-group values (subset)
};

struct Rule {
  std::string id;        // `family.kebab-name`, unique
  std::string title;
  Category category = Category::Unknown;
  AppliesTo applies_to = AppliesTo::Line;
  RuleRole role = RuleRole::Cause;
  int priority = 0;      // higher wins when several rules match one event
  std::vector<std::string> needles;  // literals; every text the regex matches contains one
  std::string regex;     // RE2 syntax; named groups become fields
  /// What a named group captures, when it is not text (`"field_types": {"gpu": "int"}`): the
  /// JSON report writes such a field as a number or a boolean. Checked against every sample.
  std::map<std::string, FactType> field_types;
  std::string explain;   // text with {field} placeholders
  /// The report's one-line summary with {field} placeholders (`No module named '{module}'`);
  /// who failed is added after it. Empty: the title (or the exception line, for catch-alls).
  std::string headline;
  std::vector<std::string> checks;  // runbook checks, with {field} placeholders
  std::vector<RuleSample> match_samples;
  std::vector<std::string> no_match_samples;
  /// What code may ask about the rule (`hang`, `host-oom`, ...): kebab-case, no repeats.
  /// Code decides on a tag (rule_tags.h), never on an id, so renaming a rule keeps its checks.
  std::vector<std::string> tags;
  std::string source;    // file:line it was loaded from
  // The regex compiled with rule_regex_options() when the rule was loaded and checked against
  // its samples; the matcher reuses it (compiling ~100 patterns twice was a visible share of
  // every run's start). Null for hand-built rules, and for rules whose file passed every check
  // before (`checked_before`): the matcher then compiles the regex when it first needs it.
  std::shared_ptr<const re2::RE2> compiled;
  bool checked_before = false;
};

/// Loads every `*.json` in each directory, in order; a later directory's rule with the same id
/// replaces the earlier one. Validation problems are diagnostics (codes `rules.*`, message
/// `file:line:column: ...` when a position is known); invalid rules are dropped.
/// Returns the valid rules sorted by id. Files are parsed and checked on up to `threads`
/// threads; the result and diagnostics do not depend on it. With a `cache`, a file whose exact
/// text passed every check before (with this executable) skips running its samples, and one
/// that passes now is remembered; the result and diagnostics are the same.
/// Files may also hold knowledge tables (knowledge_tables.h); they are always validated, and
/// merged into `tables` when given (a later directory's entry replaces the same id in place).
std::vector<Rule> load_rules(const std::vector<std::string>& directories, DiagnosticSink& diags,
                             unsigned threads = 1, const RunCache* cache = nullptr,
                             KnowledgeTables* tables = nullptr);

/// Parses one rules file's text (for tests and fuzzing). `source_name` appears in diagnostics.
/// `checked_before`: the text is known to pass every check (RunCache), so the rules are neither
/// compiled nor checked; they come back with Rule::checked_before set.
/// The file's knowledge tables, if any, are appended to `tables` when given.
/// `checked_json` (with `checked_before`): sample_free_json(text), as the check that passed
/// left it in the cache. It is parsed in place of `text` (half the bytes, no comments), whose
/// lines still say where each rule is; `text` is parsed when it is no valid JSON.
std::vector<Rule> parse_rules_text(const std::string& text, const std::string& source_name,
                                   DiagnosticSink& diags, bool checked_before = false,
                                   KnowledgeTables* tables = nullptr,
                                   const std::string* checked_json = nullptr);

/// The JSON of a rules file's `text` without its rules' samples, on one line: what
/// parse_rules_text() reads of a text checked before. Empty when `text` is no valid JSON.
std::string sample_free_json(const std::string& text);

/// Checks rules against their samples (regex and needles). Problems are diagnostics.
/// Returns the number of problems found. `load_rules` already drops rules that fail this.
int check_rule_samples(const std::vector<Rule>& rules, DiagnosticSink& diags);

/// The directory of the built-in rules: the first of builtin_rules_dir_candidates() that is a
/// directory, else the first candidate (so that a diagnostic names where it looked).
std::string default_rules_dir();

/// Every place the built-in rules are looked for, in order: $MEGATRIAGE_RULES_DIR alone when it
/// is set; else `<exe dir>/../share/megatriage/rules`, the checkout's rules/ (only for a binary
/// inside its own build tree, through the `megatriage-checkout-rules` link CMake makes beside
/// it), the configured install prefix's.
std::vector<std::string> builtin_rules_dir_candidates();

}  // namespace megatriage
