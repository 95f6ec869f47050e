#include "base/simd_level.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace megatriage {
namespace {

SimdLevel cpu_level() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
    return SimdLevel::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) return SimdLevel::Avx2;
  return SimdLevel::Sse2;
#else
  return SimdLevel::Scalar;
#endif
}

SimdLevel cap_from_environment() {
  const char* value = std::getenv("MEGATRIAGE_SIMD");
  const std::string_view cap = value != nullptr ? value : "";
  if (cap == "sse2") return SimdLevel::Sse2;
  if (cap == "avx2") return SimdLevel::Avx2;
  return SimdLevel::Avx512;
}

}  // namespace

SimdLevel detect_simd_level() { return std::min(cpu_level(), cap_from_environment()); }

}  // namespace megatriage
