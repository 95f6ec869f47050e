// Which rule directories a run loads, and whether what they gave can back an answer. The search
// path layers the site's and the user's rules over the built-in ones (where the built-in ones
// are is match/rules.h, builtin_rules_dir_candidates). Without the built-in rules every event is
// unclassified, and a report would still say "confidence high" about a symptom: a run without
// them stops with a usage error that says where the rules were looked for and how to point at
// them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/diagnostics.h"

namespace megatriage {

/// The rules search path, in the order load_rules applies it (a later directory's rule replaces
/// one with the same id): the built-in rules (default_rules_dir(), always first: the judge below
/// needs them there); the site's, `/etc/megatriage/rules.d` then each entry of
/// `$MEGATRIAGE_RULES_PATH` (colon-separated); the user's,
/// `${XDG_CONFIG_HOME:-$HOME/.config}/megatriage/rules`; then `extra` (the --rules flags) as given.
/// A site or user directory is left out when it is missing or holds no `*.json` file, as a
/// missing PATH entry is (a module or a login script may name one that is not there); a --rules
/// directory is always kept, so a typo in it is a diagnostic. Reads the environment each call.
std::vector<std::string> rules_search_path(const std::vector<std::string>& extra);

/// The search path in words, one place a line, for --help and `rules --help`.
extern const char* const kRulesSearchPathHelp;

/// Why the loaded rules cannot be used, as a message for stderr; empty when they can. They
/// cannot when the built-in directory (`dirs[0]`) could not be read or holds no rule file, or
/// when no rule loaded at all. `dirs` as given to load_rules, `rule_count` the rules it
/// returned, `diags` what it said. The message (a few lines, the first the problem) names every
/// place tried and the fix.
std::string rules_unusable_message(const std::vector<std::string>& dirs, std::size_t rule_count,
                                   const std::vector<Diagnostic>& diags);

}  // namespace megatriage
