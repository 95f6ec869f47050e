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

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

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
    // Lines of one writer come in runs: the last route taken is checked first.
    if (last_ != nullptr && last_head_.size() == head.size() &&
        std::memcmp(last_head_.data(), head.data(), head.size()) == 0)
      return last_;
    auto it = routes_.find(head);
    if (it == routes_.end()) return nullptr;
    last_head_ = it->first;
    last_ = &it->second;
    return last_;
  }

  /// The head of the route find() last returned.
  std::string_view last_head() const { return last_head_; }

  /// A file whose heads never repeat (a counter in every prefix) would only fill memory.
  bool has_room() const { return routes_.size() < kMaxRoutes; }

  void keep(std::string_view head, const StampRoute<Stream>& route) {
    if (has_room()) routes_.try_emplace(std::string(head), route);
  }

  void clear() {
    routes_.clear();
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
  const StampRoute<Stream>* last_ = nullptr;
  std::string_view last_head_;  // the key of last_ (points into routes_)
};

}  // namespace megatriage
