// How wide the hand-written vector loops may go (the byte scans of the line splitter, the
// trigger search's stamp pass, the rules' first-literal search): the widest this CPU runs, or
// narrower when MEGATRIAGE_SIMD says so. Every width gives the same results; the cap lets the
// tests run each variant on one machine (tools/test: the scan and match suites again at avx2
// and sse2).
#pragma once

namespace megatriage {

enum class SimdLevel : int {
  Scalar,  // not x86-64
  Sse2,    // every x86-64
  Avx2,    // with popcnt
  Avx512,  // AVX-512 F and BW
};

/// The CPU's level, capped by MEGATRIAGE_SIMD (`sse2`, `avx2` or `avx512`; any other value caps
/// nothing). Looks each time: use simd_level().
SimdLevel detect_simd_level();

/// The level to use, decided once per run (inline: the loops' dispatch asks per buffer or line).
inline SimdLevel simd_level() {
  static const SimdLevel level = detect_simd_level();
  return level;
}

}  // namespace megatriage
