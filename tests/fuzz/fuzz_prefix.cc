// libFuzzer target: the line prefix parser. The body must be a suffix view of the line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/line_prefix.h"

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
  return 0;
}
