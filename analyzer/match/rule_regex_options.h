// The RE2 options every rule regex is compiled with, shared by rules.cc (sample checks at load)
// and rule_matcher.cc (matching) so that a rule that passes its samples behaves the same at match
// time. Latin-1 makes matching byte-wise: log lines are not guaranteed to be UTF-8, and `[^\n]*`
// must cross any byte. Include only from those two files (RE2 stays out of other headers).
#pragma once

#include <re2/re2.h>

namespace megatriage {

inline RE2::Options rule_regex_options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_max_mem(8 << 20);
  return o;
}

}  // namespace megatriage
