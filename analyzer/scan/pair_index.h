// Literal search by byte pairs: each literal is indexed by the pair of adjacent bytes that is
// rarest in typical log noise (so `NCCL WARN` is found through `WA`, not the `NC` of every NCCL
// INFO line); a text is walked pair by pair, one table probe per byte, and a probe hit is checked
// with memcmp. Allocation-free when searching. Used by the rule prefilter, and as the built-in
// trigger search when Vectorscan is not there.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace megatriage {

class PairIndex {
 public:
  struct Entry {
    std::uint16_t pair = 0;    // the literal's bytes at `offset`, offset + 1
    std::uint16_t offset = 0;
    std::string text;
    std::vector<int> tags;     // what the caller attached (every add() of this text)
  };

  /// Requires: literal.size() >= 2. Call finish() after the last add().
  void add(const std::string& literal, int tag);
  void finish();
  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }

  /// Calls `found(start, entry)` for every occurrence of a literal in `text` (start = its offset
  /// in `text`) until `found` returns true. Occurrences come ordered by the position of their
  /// indexing pair, not by start.
  template <class Found>
  void for_each(std::string_view text, Found found) const {
    const std::size_t n = text.size();
    if (n < 2 || entries_.empty()) return;
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    for (std::size_t i = 0; i + 1 < n; ++i) {
      const std::uint16_t key = pair_key(p[i], p[i + 1]);
      if (((bits_[key >> 6] >> (key & 63)) & 1U) == 0) continue;
      auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                 [](const Entry& e, std::uint16_t k) { return e.pair < k; });
      for (; it != entries_.end() && it->pair == key; ++it) {
        const std::size_t len = it->text.size();
        if (it->offset > i) continue;
        const std::size_t start = i - it->offset;
        if (len <= n - start && std::memcmp(p + start, it->text.data(), len) == 0 && found(start, *it))
          return;
      }
    }
  }

  static std::uint16_t pair_key(unsigned char a, unsigned char b) {
    return static_cast<std::uint16_t>((static_cast<unsigned>(a) << 8) | b);
  }

 private:
  std::array<std::uint64_t, 65536 / 64> bits_{};
  std::vector<Entry> entries_;
};

}  // namespace megatriage
