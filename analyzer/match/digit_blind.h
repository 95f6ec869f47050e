// Whether a rule's regex can tell one digit from another. Every rank of a big job prints the
// same lines with its own rank number, sequence number and time in them; a regex for which all
// ten digits are alike decides each rank's copy the same way, so RuleMatcher decides it once.
#pragma once

#include <string>
#include <string_view>

namespace megatriage {

/// True when replacing any digit of a text by any other digit cannot change whether `regex`
/// (RE2 syntax) matches it: every piece of the pattern that can match a digit matches all ten
/// (`\d`, `[0-9]`, `\w`, `.`, `[^\]\s]`), and no digit stands for itself (`c10d`, `[1-9]`,
/// `\x31`, `{` not starting a repetition). A reader that says false whenever it is unsure
/// (`\p{...}`, hex and octal escapes, a class it cannot read).
bool digit_blind(std::string_view regex);

/// Digits inside a word (`c10d`, `H100`, `mat1`, `bf16`): a run of them next to an ASCII letter
/// or `_`. number_blind(regex) is digit_blind(regex) except that a literal digit is allowed where
/// it can only match such digits: its run of literal digits touches a letter or `_` that the
/// regex always matches right there (`c10d`, not `c?10`). Such a regex decides alike two texts
/// that differ only in the digits outside words (ranks, times, counts): those mask_numbers()
/// replaces. Every digit_blind regex is number_blind.
bool number_blind(std::string_view regex);

/// `text` with every digit replaced by '0' (into `out`): the key of a digit_blind decision.
void mask_digits(std::string_view text, std::string& out);

/// `text` with every digit outside a word replaced by '0' (into `out`): the key of a
/// number_blind decision. The mask of a text's suffix is the suffix of the text's mask, except
/// that a number at its start may keep its digits (a letter before it in the text): a key that
/// says more, never one that says less.
void mask_numbers(std::string_view text, std::string& out);

}  // namespace megatriage
