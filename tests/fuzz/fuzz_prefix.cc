// libFuzzer target: the line prefix parser and prefix learning. Bodies must be suffix views of
// the line; learning from any bytes and peeling any line must not crash.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "extract/line_prefix.h"
#include "extract/prefix_learning.h"

using namespace megatriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  LinePrefix p = parse_prefix(line);
  // Views point into the line.
  auto inside = [&](std::string_view v) {
    return v.empty() || (v.data() >= line.data() && v.data() + v.size() <= line.data() + line.size());
  };
  if (!inside(p.body) || !inside(p.tee_role) || !inside(p.nccl_host)) __builtin_trap();
  (void)to_debug_string(p);

  // The same bytes as a file's head, then as a line under every family and a learnt header.
  PrefixLearner learner;
  learner.learn_from_head(line, size % 2 == 0);
  for (PrefixKind k : {PrefixKind::Ray, PrefixKind::Host, PrefixKind::Counter, PrefixKind::Editor}) learner.adopt(k);
  if (std::size_t at = PrefixLearner::header_residual(p.body); at > 0) {
    if (at > p.body.size()) __builtin_trap();
    (void)learner.learn_header_prefix(p.body.substr(0, at));
  }
  std::vector<PrefixLearner::Layer> layers;
  LinePrefix q = parse_prefix(line);
  (void)learner.peel(q, layers);
  if (!inside(q.body) || !inside(q.tee_role) || !inside(q.nccl_host)) __builtin_trap();
  for (const auto& l : layers) {
    if (!inside(l.text) || l.writer == 0) __builtin_trap();
    (void)PrefixLearner::rank_of(l.text);
    (void)PrefixLearner::host_of(l.text);
    (void)PrefixLearner::stamp_in(l.text);
    (void)PrefixLearner::identity(l.text);
  }
  if (PrefixLearner::shape_length(line, line) != line.size()) __builtin_trap();
  return 0;
}
