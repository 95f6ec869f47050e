// libFuzzer target: the rules loader (JSON with comments, schema, RE2 compile, samples), then
// compiling what loaded into a matcher, matching a sample line and capturing its fields.
#include <cstddef>
#include <cstdint>
#include <string>

#include "match/rule_matcher.h"
#include "match/rules.h"

using namespace megatriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  DiagnosticSink diags;
  std::vector<Rule> rules = parse_rules_text(text, "fuzz.json", diags);
  (void)check_rule_samples(rules, diags);
  RuleMatcher matcher(std::move(rules), diags);
  for (const char* sample : {"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
                             "NCCL WARN Call to connect returned Connection refused"}) {
    for (AppliesTo kind : {AppliesTo::Line, AppliesTo::Exception}) {
      if (kind == AppliesTo::Line && !matcher.line_candidate(sample)) continue;
      for (const RuleMatch& m : matcher.match(sample, kind)) (void)matcher.fields(m, sample);
    }
  }
  return 0;
}
