// Rule matching: a literal prefilter over the rules' needles, then one RE2::Set pass on
// candidate text; it decides which rules match, not what they capture. Captures are taken on
// demand (fields(), field()) from the matched text, for the few matches a report reads.
// Compiled once, shared read-only by all workers (thread-safe after construction).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/diagnostics.h"
#include "match/knowledge_tables.h"
#include "match/rules.h"

namespace megatriage {

/// One rule that matched a text. Its named groups are not kept: RuleMatcher::fields() takes
/// them from the matched text when a report asks (a big job matches tens of thousands of lines
/// and reads the fields of a handful).
struct RuleMatch {
  int rule_index = -1;  // index into RuleMatcher::rules()
};

class RuleMatcher {
 public:
  /// Compiles `rules` (already validated). Problems (e.g. RE2 Set compile failure) are
  /// diagnostics; such rules are left out.
  RuleMatcher(std::vector<Rule> rules, DiagnosticSink& diags);
  ~RuleMatcher();
  RuleMatcher(const RuleMatcher&) = delete;
  RuleMatcher& operator=(const RuleMatcher&) = delete;

  const std::vector<Rule>& rules() const { return rules_; }

  /// The knowledge tables loaded with the rules (empty until set_tables). Not thread-safe
  /// against set_tables; read-only use from any thread is safe.
  const KnowledgeTables& tables() const { return tables_; }
  void set_tables(KnowledgeTables tables) { tables_ = std::move(tables); }

  /// Cheap literal test: could any Line rule match `text`? False positives allowed, false
  /// negatives never (given each rule's contract: every match contains one of its needles).
  /// Case-sensitive, byte-wise scan of byte pairs against a 64 Ki-bit table of needle prefixes,
  /// memcmp on a hit. Allocation-free; this is the per-line hot path.
  bool line_candidate(std::string_view text) const;

  /// The Line rules' needles with the index of the rule needing each, for a whole-buffer search
  /// of candidate lines. False when no such list is complete (a Line rule without a usable
  /// needle, or the prefilter is disabled): then every line is a candidate.
  bool line_needles(std::vector<std::pair<std::string, int>>& out) const;

  /// The Line rules whose needles occur in `text`, ascending: the only ones that can match it.
  void line_candidate_rules(std::string_view text, std::vector<int>& out) const;

  /// All rules with `applies_to == kind` that match `text`, ordered by priority (highest first),
  /// then id. Allocates only when something matches. `line_candidates` (Line rules, ascending):
  /// rules among which those whose needles occur in `text` are, from a search that already
  /// found where needles may be (line_needles()); null: this looks for the needles itself.
  std::vector<RuleMatch> match(std::string_view text, AppliesTo kind,
                               const std::vector<int>* line_candidates = nullptr) const;

  /// Whether the regex of rule `rule_index` has a group named `name`: a lookup, no matching, so
  /// a scan of every event for one field costs nothing for the rules that cannot have it.
  bool has_group(int rule_index, std::string_view name) const;

  /// The named groups that take part in `m`'s match. Requires: `text` is the
  /// text match() returned `m` for (Event: matched_text()); else the result means nothing. One
  /// RE2 match with submatches, anchored at the rule's literal prefix when it has one.
  std::map<std::string, std::string> fields(const RuleMatch& m, std::string_view text) const;

  /// One named group of `m`'s match of `text` (same requirement as fields()): nullopt when the
  /// rule has no such group (decided without matching) or the group took no part.
  std::optional<std::string> field(const RuleMatch& m, std::string_view text, std::string_view name) const;

  /// Disable the prefilter (hidden debug flag for invariance tests): line_candidate() is always true.
  void set_prefilter_enabled(bool enabled) { prefilter_enabled_ = enabled; }

  /// How many match() calls fell back to per-rule matching because the RE2::Set DFA ran out of
  /// memory (match() has no sink; the driver may turn a non-zero count into a diagnostic).
  /// Results are identical either way. Thread-safe.
  std::uint64_t set_fallback_count() const;

 private:
  struct Compiled;
  std::vector<Rule> rules_;
  KnowledgeTables tables_;
  std::unique_ptr<Compiled> compiled_;
  bool prefilter_enabled_ = true;
};

/// The literal text every match of `regex` (RE2 syntax, Latin-1, case-sensitive) starts with;
/// "" when there is none or the pattern uses what this reader does not follow (a top-level
/// `|`, `\Q...\E`, `[:class:]`). Conservative: a shorter prefix is always safe.
std::string required_regex_prefix(std::string_view regex);

/// What every match of `regex` (read as required_regex_prefix reads it) starts with: one of
/// `literals`, which are required_regex_prefix's or the branches of a leading `(?:a|b|...)`
/// group of plain literals; none when unknown. A `^` branch of that group puts what must follow
/// the group in `at_start` (a match may also start at the text's start with one of them; {""}:
/// with anything) and appends it to the other branches. `whole`: a match is one of them followed
/// by a tail that can match nothing (`.*` or `[...]*`, alone or as one group), so finding a
/// literal is finding a match.
struct LeadingLiterals {
  std::vector<std::string> literals;
  std::vector<std::string> at_start;
  bool whole = false;
};
LeadingLiterals leading_literals(std::string_view regex);

/// Replaces `{name}` placeholders in `text` with `fields[name]`; unknown names stay as they are.
std::string fill_placeholders(const std::string& text, const std::map<std::string, std::string>& fields);

}  // namespace megatriage
