// libFuzzer target: TracebackBuilder fed the input's lines (one stream). The first byte picks
// small limits so the frame/message caps are exercised.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/traceback.h"

using namespace megatriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  TracebackLimits limits;
  if (data[0] & 1) {
    limits.max_frames = data[0] >> 3;  // 0..31, below and above the kept head
    limits.max_message_lines = (data[0] >> 1) & 3;
    limits.max_text_bytes = 8;
  }
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  TracebackBuilder builder(limits);
  std::uint64_t line = 0, offset = 0;
  auto drain = [&] {
    while (builder.has_ready()) {
      Traceback tb = builder.take();
      for (const auto& b : tb.blocks) {
        if (b.frames.size() > limits.max_frames) __builtin_trap();
        if (b.exception.size() > limits.max_text_bytes) __builtin_trap();
      }
      (void)to_debug_string(tb);
    }
  };
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view body = text.substr(0, nl);
    (void)builder.active();
    (void)builder.past_exception();
    (void)strip_group_margin(body);
    if (builder.feed(body, ++line, offset)) drain();
    offset += body.size() + 1;
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  if (builder.finish()) drain();
  return 0;
}
