// The repository's rules, loaded once for the unit tests that need a real matcher.
#pragma once

#include "match/rule_matcher.h"
#include "match/rules.h"

namespace megatriage::test {

inline const RuleMatcher& repo_matcher() {
  static DiagnosticSink diags;
  static KnowledgeTables tables;
  static RuleMatcher matcher(load_rules({default_rules_dir()}, diags, 1, nullptr, &tables), diags);
  static const bool with_tables = (matcher.set_tables(tables), true);
  (void)with_tables;
  return matcher;
}

}  // namespace megatriage::test
