// Whether the rules a run loaded can back an answer. Without the built-in rules every event is
// unclassified, and a report would still say "confidence high" about a symptom: a run without
// them stops with a usage error that says where the rules were looked for and how to point at
// them. Where the lookup goes is match/rules.h (builtin_rules_dir_candidates); this only judges.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/diagnostics.h"

namespace megatriage {

/// Why the loaded rules cannot be used, as a message for stderr; empty when they can. They
/// cannot when the built-in directory (`dirs[0]`) could not be read or holds no rule file, or
/// when no rule loaded at all. `dirs` as given to load_rules, `rule_count` the rules it
/// returned, `diags` what it said. The message (a few lines, the first the problem) names every
/// place tried and the fix.
std::string rules_unusable_message(const std::vector<std::string>& dirs, std::size_t rule_count,
                                   const std::vector<Diagnostic>& diags);

}  // namespace megatriage
