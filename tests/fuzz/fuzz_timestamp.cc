// libFuzzer target: the timestamp parser and what consumes its result.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "timestamp.h"

using namespace megatriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto t = parse_timestamp(body);
  if (!t) return 0;
  (void)to_debug_string(*t);
  CivilTime full = *t;
  if (full.year == 0) full.year = 2026;
  if (auto us = civil_to_us(full)) (void)format_iso(*us);
  return 0;
}
