// libFuzzer target: the timestamp parser and what consumes its result.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/timestamp.h"

using namespace megatriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto t = parse_timestamp(body);
  if (!t) return 0;
  // The fast path looks only at lines with `DD:DD:DD` for stamps: every accepted shape has one.
  bool time_of_day = false;
  auto digit = [&](std::size_t i) { return body[i] >= '0' && body[i] <= '9'; };
  for (std::size_t i = 2; i + 6 <= body.size() && !time_of_day; ++i)
    time_of_day = body[i] == ':' && body[i + 3] == ':' && digit(i - 2) && digit(i - 1) && digit(i + 1) &&
                  digit(i + 2) && digit(i + 4) && digit(i + 5);
  if (!time_of_day) __builtin_trap();
  (void)to_debug_string(*t);
  CivilTime full = *t;
  if (full.year == 0) full.year = 2026;
  if (auto us = civil_to_us(full)) (void)format_iso(*us);
  return 0;
}
