// Sorting a big job's rank numbers: tens of thousands of events name a few thousand ranks, so
// most are repeats of a small range. Marking them in a table and reading it back is one pass
// over each, where a comparison sort costs a dozen compares an element.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace megatriage {

/// `values` sorted ascending, each value once. By a table of the range when the range is small
/// next to the count (as ranks are), else by a sort.
inline void sort_unique(std::vector<int>& values) {
  std::int64_t first = 0;
  std::uint64_t span = 0;  // 0: sort
  if (values.size() >= 64) {
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    first = *low;
    span = static_cast<std::uint64_t>(static_cast<std::int64_t>(*high) - first) + 1;
    if (span > 4 * static_cast<std::uint64_t>(values.size()) + 4096) span = 0;
  }
  if (span == 0) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return;
  }
  std::vector<unsigned char> seen(span, 0);
  for (int v : values) seen[static_cast<std::size_t>(v - first)] = 1;
  values.clear();
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (seen[i] != 0) values.push_back(static_cast<int>(first + static_cast<std::int64_t>(i)));
}

}  // namespace megatriage
