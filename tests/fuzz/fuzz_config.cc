// libFuzzer target: the Megatron arguments-dump / world-size parsers and the ConfigExtractor
// state machine fed the input's lines.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "extract/megatron_config.h"

using namespace megatriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ConfigExtractor extractor;
  std::vector<Fact> facts;
  std::uint64_t line = 0;
  while (true) {
    std::size_t nl = text.find('\n');
    std::string_view body = text.substr(0, nl);
    std::string key, value;
    (void)parse_args_dump_line(body, key, value);
    std::vector<Fact> ws;
    (void)parse_world_size_line(body, ws);
    ++line;
    extractor.feed(body, line, static_cast<int>(line % 4) - 1, facts);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  for (const auto& f : facts)
    if (f.value.size() > ConfigExtractor::kMaxFactValueBytes + 3) __builtin_trap();
  return 0;
}
