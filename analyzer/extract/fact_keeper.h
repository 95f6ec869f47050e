// Extract stage: what a file keeps of the facts its extractors read. Facts repeat (every
// iteration line, every GPU mention): the fact registry says per key what a file keeps (the
// first value of a configuration key, the latest progress figures, one memory peak per rank).
// A fact that changes nothing is dropped as it comes, without being built.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/fact_registry.h"
#include "model/facts.h"

namespace megatriage {

class FactKeeper final : public FactOut {
 public:
  FactKeeper() = default;
  // A copy (a watcher's snapshot) starts with no recent keys: they point into the original.
  FactKeeper(const FactKeeper& other)
      : kept_(other.kept_), key_slots_(other.key_slots_), rank_slots_(other.rank_slots_) {}
  FactKeeper& operator=(const FactKeeper& other) {
    kept_ = other.kept_;
    key_slots_ = other.key_slots_;
    rank_slots_ = other.rank_slots_;
    recent_ = {};
    return *this;
  }

  void add(std::string_view key, std::string_view value, std::uint64_t line, int rank) override;
  bool settled(std::string_view key) override {
    const KeySlot& k = slot_of(key);
    return k.merge == FactMerge::First && k.index != KeySlot::kNone;
  }

  /// The facts kept, in the order their keys (or key and rank) were first seen.
  std::vector<Fact> take() { return std::move(kept_); }

 private:
  // Where a key's kept value is in kept_ (per rank for MaxPerRank keys).
  struct KeySlot {
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    FactMerge merge = FactMerge::First;
    std::size_t index = kNone;
  };
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  KeySlot& slot_of(std::string_view key);

  std::vector<Fact> kept_;
  std::unordered_map<std::string, KeySlot, KeyHash, std::equal_to<>> key_slots_;
  std::map<std::pair<std::string, int>, std::size_t> rank_slots_;
  // The keys last looked up (views of key_slots_' keys, whose nodes do not move): an iteration
  // line's four are compared before any is hashed.
  struct Recent {
    std::string_view key;
    KeySlot* slot = nullptr;
  };
  std::array<Recent, 8> recent_{};
  std::size_t next_recent_ = 0;
};

}  // namespace megatriage
