// Attribute stage, the stamped line's shortcut: where a line goes when it matters only for its
// time, its rules and its facts. In stamped logs (Python logging, c10 warnings, `srun --label`
// with torchrun prefixes) most lines carry a stamp and at most a needle no rule then matches or
// a fact; each of them would be routed from scratch (prefix parse, learnt prefixes, stream
// lookup) only to move its stream's clock.
// A file's writers repeat their heads line after line, so the bytes before a line's first
// stamp decide its stream: the first line with those bytes is routed in full and its route
// kept; later ones with the same bytes take it. The caller keeps a route only where that holds
// (the prefixes end before the stamp) and drops them all when the routing rules change
// (a prefix learnt mid-file).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/sampled_hash.h"
#include "extract/timestamp.h"

namespace megatriage {

/// Where a line goes: its stream, and where its stamp can be read.
template <class Stream>
struct StampRoute {
  Stream* stream = nullptr;
  std::uint32_t named_at = 0;  // the body after the parsed prefixes (parse_timestamp looks here first)
  std::uint32_t body_at = 0;   // ... and after the learnt ones
  bool launcher = false;       // no rank or tee prefix: the line may bound its srun task's workers
  int srun_task = -1;
  // How the stamp at named_at continues after its time of day, when its shape allows reading
  // the time from the digits alone (timestamp.h).
  std::optional<TimeOfDayLayout> layout;
  bool nccl_host = false;  // behind NCCL's `host:pid:tid` head: its body may name ranks
};

/// Routes by a line's head (its bytes up to and including the first byte of its first stamp:
/// a prefix parser may look one byte past a prefix). Copies start empty: a route points at
/// the streams of the analyzer that made it.
template <class Stream>
class StampRoutes {
 public:
  StampRoutes() = default;
  StampRoutes(const StampRoutes&) {}
  StampRoutes& operator=(const StampRoutes&) {
    clear();
    return *this;
  }

  /// The route kept for `head`, or null.
  const StampRoute<Stream>* find(std::string_view head) {
    // Writers print in runs or take turns (ranks in one srun file): the routes found lately
    // are kept in a small table by a hash of their head, which costs one compare where the
    // map's lookup walks three pointers.
    if (recent_.empty()) return nullptr;  // no route kept
    const std::uint64_t hash = quick_hash(head);
    Recent& r = recent_[hash & (recent_.size() - 1)];
    if (r.route == nullptr || r.hash != hash || r.head.size() != head.size() ||
        std::memcmp(r.head.data(), head.data(), head.size()) != 0) {
      auto it = routes_.find(head);
      if (it == routes_.end()) return nullptr;
      r = Recent{hash, it->first, &it->second};
    }
    last_ = r.route;
    last_head_ = r.head;
    return last_;
  }

  /// The route find() last returned (null after clear() and in a copy), and its head.
  const StampRoute<Stream>* last() const { return last_; }
  std::string_view last_head() const { return last_head_; }

  /// A file whose heads never repeat (a counter in every prefix) would only fill memory.
  bool has_room() const { return routes_.size() < kMaxRoutes; }

  void keep(std::string_view head, const StampRoute<Stream>& route) {
    if (!has_room()) return;
    routes_.try_emplace(std::string(head), route);
    // Room for every route in the table of recent ones, from a few KiB (a file of one writer)
    // to kMaxRecent entries (hundreds of ranks in one file); growing starts it afresh.
    const std::size_t wanted = std::min(kMaxRecent, std::bit_ceil(std::max<std::size_t>(64, 4 * routes_.size())));
    if (recent_.size() < wanted) recent_.assign(wanted, Recent{});
  }

  void clear() {
    routes_.clear();
    recent_.clear();
    last_ = nullptr;
    last_head_ = {};
  }

 private:
  static constexpr std::size_t kMaxRoutes = 4096;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, StampRoute<Stream>, Hash, std::equal_to<>> routes_;
  // The head's length and three words of it (base/sampled_hash.h): writers' heads differ
  // near their ends (a rank, the hour) or starts (an srun task).
  static std::uint64_t quick_hash(std::string_view s) {
    std::uint64_t h = mix_word(hash_seed(s.size()), text_word(s, 0));
    if (s.size() > 16) h = mix_word(h, text_word(s, s.size() - 16));
    if (s.size() > 8) h = mix_word(h, text_word(s, s.size() - 8));
    return h;
  }
  struct Recent {
    std::uint64_t hash = 0;
    std::string_view head;  // a key of routes_
    const StampRoute<Stream>* route = nullptr;
  };
  static constexpr std::size_t kMaxRecent = 1024;
  std::vector<Recent> recent_;  // a power of two entries, or none before the first route
  const StampRoute<Stream>* last_ = nullptr;  // the route find() last returned
  std::string_view last_head_;                 // its key
};

}  // namespace megatriage
