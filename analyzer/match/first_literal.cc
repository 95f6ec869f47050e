#include "match/first_literal.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/simd_level.h"

namespace megatriage {

FirstLiteral::FirstLiteral(std::vector<std::string> literals) : literals_(std::move(literals)) {
  std::vector<std::string> pairs;
  for (const std::string& l : literals_) {
    if (l.size() < 2) return;
    pairs.push_back(l.substr(0, 2));
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  if (pairs.size() <= kMaxPairs) pairs_ = std::move(pairs);
}

bool FirstLiteral::starts_here(std::string_view text, std::size_t at) const {
  for (const std::string& l : literals_)
    if (l.size() <= text.size() - at && std::memcmp(text.data() + at, l.data(), l.size()) == 0) return true;
  return false;
}

#if defined(__x86_64__)
// Blocks of 32 starting positions whose first two bytes are one of pairs_, then each such
// position checked. The last block overlaps the one before it, its positions already seen
// masked off.
__attribute__((target("avx2"))) std::size_t FirstLiteral::find_avx2(std::string_view text) const {
  __m256i first[kMaxPairs], second[kMaxPairs];
  const std::size_t n = pairs_.size();
  for (std::size_t k = 0; k < n; ++k) {
    first[k] = _mm256_set1_epi8(pairs_[k][0]);
    second[k] = _mm256_set1_epi8(pairs_[k][1]);
  }
  for (std::size_t i = 0;; i += 32) {
    const bool last = i + 33 >= text.size();
    const std::size_t at = last ? text.size() - 33 : i;
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + at));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + at + 1));
    __m256i any = _mm256_and_si256(_mm256_cmpeq_epi8(a, first[0]), _mm256_cmpeq_epi8(b, second[0]));
    for (std::size_t k = 1; k < n; ++k)
      any = _mm256_or_si256(any, _mm256_and_si256(_mm256_cmpeq_epi8(a, first[k]), _mm256_cmpeq_epi8(b, second[k])));
    auto mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(any));
    if (at < i) mask &= ~0u << (i - at);
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t pos = at + static_cast<std::size_t>(__builtin_ctz(mask));
      if (starts_here(text, pos)) return pos;
    }
    if (last) return std::string_view::npos;
  }
}
#endif

std::size_t FirstLiteral::find(std::string_view text) const {
  if (pairs_.empty()) {
    std::size_t first = std::string_view::npos;
    for (const std::string& l : literals_) first = std::min(first, text.find(l));
    return first;
  }
#if defined(__x86_64__)
  if (simd_level() >= SimdLevel::Avx2 && text.size() >= 33) return find_avx2(text);
#endif
  for (std::size_t i = 0; i + 1 < text.size(); ++i)
    for (const std::string& p : pairs_)
      if (text[i] == p[0] && text[i + 1] == p[1] && starts_here(text, i)) return i;
  return std::string_view::npos;
}

}  // namespace megatriage
