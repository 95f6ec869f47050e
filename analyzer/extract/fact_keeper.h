// Extract stage: what a file keeps of the facts its extractors read. Facts repeat (every
// iteration line, every GPU mention): the fact registry says per key what a file keeps (the
// first value of a configuration key, the latest progress figures, one memory peak per rank).
// A fact that changes nothing is dropped as it comes, without being built, and a line whose
// facts the next line of its kind replaces (iteration lines) is parsed only when they can still
// matter: before any other fact is kept, at the end, or when the newest line turns out not to
// replace all that came before it.
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
      : kept_(other.kept_), key_slots_(other.key_slots_), rank_slots_(other.rank_slots_),
        pending_(other.pending_), pending_count_(other.pending_count_), pending_kind_(other.pending_kind_) {}
  FactKeeper& operator=(const FactKeeper& other) {
    kept_ = other.kept_;
    key_slots_ = other.key_slots_;
    rank_slots_ = other.rank_slots_;
    recent_ = {};
    pending_ = other.pending_;
    pending_count_ = other.pending_count_;
    pending_kind_ = other.pending_kind_;
    return *this;
  }

  void add(std::string_view key, std::string_view value, std::uint64_t line, int rank) override {
    flush();
    keep(key, value, line, rank);
  }
  bool defer(std::string_view text, std::uint64_t line, int rank, const ReplacedLine& kind) override;

  /// The facts kept, in the order their keys (or key and rank) were first seen.
  std::vector<Fact> take() {
    flush();
    return std::move(kept_);
  }

 private:
  // Deferred lines (defer()), oldest first; their strings are reused.
  struct Pending {
    std::string text;
    std::uint64_t line = 0;
    int rank = -1;
  };
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
  void keep(std::string_view key, std::string_view value, std::uint64_t line, int rank);
  // Parses the pending lines, oldest first, and keeps their facts.
  void flush() {
    if (pending_count_ != 0) flush_pending();
  }
  void flush_pending();
  // Whether `newest`'s facts replace whatever the lines before it of its kind would add: it
  // has every key its kind keeps the latest of, and each first-kept key is kept already.
  bool replaces_all(const Pending& newest);

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
  static constexpr std::size_t kMaxPending = 16;
  std::vector<Pending> pending_;
  std::size_t pending_count_ = 0;
  const ReplacedLine* pending_kind_ = nullptr;
};

}  // namespace megatriage
