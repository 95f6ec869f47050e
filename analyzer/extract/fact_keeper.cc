#include "extract/fact_keeper.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace megatriage {

void FactKeeper::keep(std::string_view key, std::string_view value, std::uint64_t line, int rank) {
  KeySlot& k = slot_of(key);
  const FactMerge merge = k.merge;
  std::size_t& slot = merge == FactMerge::MaxPerRank
                          ? rank_slots_.try_emplace({std::string(key), rank}, KeySlot::kNone).first->second
                          : k.index;
  if (slot == KeySlot::kNone) {
    slot = kept_.size();
    kept_.push_back(Fact{std::string(key), std::string(value), line, rank});
    return;
  }
  Fact& kept = kept_[slot];
  const bool replace = merge == FactMerge::Latest ||
                       (merge == FactMerge::MaxPerRank &&
                        std::atof(std::string(value).c_str()) > std::atof(kept.value.c_str()));
  if (!replace) return;
  // The key is the same: only what it says changes (no allocation for a short value).
  kept.value.assign(value);
  kept.line = line;
  kept.rank = rank;
}

bool FactKeeper::defer(std::string_view text, std::uint64_t line, int rank, const ReplacedLine& kind) {
  if (pending_kind_ != &kind) {
    flush();
    // Only keys whose latest or first value is kept: a per-rank maximum needs every line.
    for (std::string_view key : kind.keys)
      if (slot_of(key).merge == FactMerge::MaxPerRank) return false;
    pending_kind_ = &kind;
  }
  if (pending_count_ == pending_.size()) pending_.emplace_back();
  Pending& p = pending_[pending_count_++];
  p.text.assign(text);
  p.line = line;
  p.rank = rank;
  if (pending_count_ == kMaxPending) {
    // Full: when the newest line replaces every fact of the ones before it, they are dropped
    // unparsed (the common case: one parse per kMaxPending lines); else all are parsed.
    if (replaces_all(pending_[pending_count_ - 1])) {
      std::swap(pending_[0], pending_[pending_count_ - 1]);
      pending_count_ = 1;
    } else {
      flush_pending();
    }
  }
  return true;
}

bool FactKeeper::replaces_all(const Pending& newest) {
  std::vector<Fact> facts;
  FactList list(facts);
  pending_kind_->parse(newest.text, newest.line, newest.rank, list);
  for (std::string_view key : pending_kind_->keys) {
    const KeySlot& k = slot_of(key);
    if (k.merge == FactMerge::First) {
      if (k.index == KeySlot::kNone) return false;  // an older line's value would be kept
    } else if (std::none_of(facts.begin(), facts.end(), [&](const Fact& f) { return f.key == key; })) {
      return false;  // an older line's value would be the latest
    }
  }
  return true;
}

void FactKeeper::flush_pending() {
  // Parsed into a list, then kept: the parser would otherwise call add(), which flushes.
  std::vector<Fact> facts;
  const std::size_t count = pending_count_;
  pending_count_ = 0;
  for (std::size_t i = 0; i < count; ++i) {
    facts.clear();
    FactList list(facts);
    const Pending& p = pending_[i];
    pending_kind_->parse(p.text, p.line, p.rank, list);
    for (const Fact& f : facts) keep(f.key, f.value, f.line, f.rank);
  }
}

// Iteration lines bring four facts each: the key's policy and slot are found without building
// a string or searching the registry, and mostly without hashing.
FactKeeper::KeySlot& FactKeeper::slot_of(std::string_view key) {
  for (const Recent& r : recent_)
    if (r.slot != nullptr && r.key.size() == key.size() &&
        (key.empty() || (r.key[0] == key[0] && std::memcmp(r.key.data(), key.data(), key.size()) == 0)))
      return *r.slot;
  auto k = key_slots_.find(key);
  if (k == key_slots_.end()) k = key_slots_.emplace(std::string(key), KeySlot{fact_spec(key).in_file}).first;
  recent_[next_recent_] = Recent{k->first, &k->second};
  next_recent_ = (next_recent_ + 1) % recent_.size();
  return k->second;
}

}  // namespace megatriage
