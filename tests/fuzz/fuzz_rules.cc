// libFuzzer target: the rules loader (JSON with comments, schema, RE2 compile, samples), then
// compiling what loaded into a matcher and matching a sample line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "rule_matcher.h"
#include "rules.h"

using namespace megatriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  DiagnosticSink diags;
  std::vector<Rule> rules = parse_rules_text(text, "fuzz.json", diags);
  (void)check_rule_samples(rules, diags);
  RuleMatcher matcher(std::move(rules), diags);
  for (const char* sample : {"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
                             "NCCL WARN Call to connect returned Connection refused"}) {
    if (matcher.line_candidate(sample)) (void)matcher.match(sample, AppliesTo::Line);
    (void)matcher.match(sample, AppliesTo::Exception);
  }
  return 0;
}
