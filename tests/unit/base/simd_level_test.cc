#include "base/simd_level.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace megatriage {

namespace {
// detect_simd_level() with MEGATRIAGE_SIMD set to `value` (unset for nullptr), the variable
// then put back as it was.
SimdLevel detected_with(const char* value) {
  const char* before = std::getenv("MEGATRIAGE_SIMD");
  const std::string saved = before != nullptr ? before : "";
  if (value != nullptr) {
    setenv("MEGATRIAGE_SIMD", value, 1);
  } else {
    unsetenv("MEGATRIAGE_SIMD");
  }
  const SimdLevel level = detect_simd_level();
  if (before != nullptr) {
    setenv("MEGATRIAGE_SIMD", saved.c_str(), 1);
  } else {
    unsetenv("MEGATRIAGE_SIMD");
  }
  return level;
}
}  // namespace

TEST_CASE("MEGATRIAGE_SIMD caps the vector width and never raises it") {
  const SimdLevel cpu = detected_with(nullptr);
#if defined(__x86_64__)
  CHECK(cpu >= SimdLevel::Sse2);
  CHECK(detected_with("sse2") == SimdLevel::Sse2);
  CHECK(detected_with("avx2") == std::min(cpu, SimdLevel::Avx2));
#else
  CHECK(cpu == SimdLevel::Scalar);
  CHECK(detected_with("sse2") == SimdLevel::Scalar);
#endif
  CHECK(detected_with("avx512") == cpu);
  // Anything else caps nothing.
  CHECK(detected_with("AVX2") == cpu);
  CHECK(detected_with("") == cpu);
}

}  // namespace megatriage
