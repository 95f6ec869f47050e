// The repository's rules, loaded once for the unit tests that need a real matcher.
#pragma once

#include "match/rule_matcher.h"
#include "match/rules.h"

namespace megatriage::test {

inline const RuleMatcher& repo_matcher() {
  static DiagnosticSink diags;
  static RuleMatcher matcher(load_rules({default_rules_dir()}, diags), diags);
  return matcher;
}

}  // namespace megatriage::test
