#include "extract/fact_keeper.h"

#include <cstdlib>
#include <cstring>

namespace megatriage {

void FactKeeper::add(std::string_view key, std::string_view value, std::uint64_t line, int rank) {
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
