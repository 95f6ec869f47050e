// Whether a rule's regex can tell one digit from another. Every rank of a big job prints the
// same lines with its own rank number, sequence number and time in them; a regex for which all
// ten digits are alike decides each rank's copy the same way, so RuleMatcher decides it once.
#pragma once

#include <string_view>

namespace megatriage {

/// True when replacing any digit of a text by any other digit cannot change whether `regex`
/// (RE2 syntax) matches it: every piece of the pattern that can match a digit matches all ten
/// (`\d`, `[0-9]`, `\w`, `.`, `[^\]\s]`), and no digit stands for itself (`c10d`, `[1-9]`,
/// `\x31`, `{` not starting a repetition). A reader that says false whenever it is unsure
/// (`\p{...}`, hex and octal escapes, a class it cannot read).
bool digit_blind(std::string_view regex);

}  // namespace megatriage
