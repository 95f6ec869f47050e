// A small on-disk cache of start-up work that a run may skip when nothing it depends on changed:
// the rule files that already passed their sample checks (each as its JSON without the samples,
// which is what the next run parses), and the compiled trigger search. On a
// small job these are most of the run (docs/performance.md); a post-mortem hook pays them after
// every failed job.
//
// Entries are keyed by a hash of their inputs plus this executable's identity (device, inode,
// size, mtime), so a rebuilt or upgraded binary never reads an older one's entries. Everything is
// best effort: no HOME, a read-only disk, a damaged or foreign entry all mean the work is simply
// done again, with the same report. Entries are written to a temporary name and renamed, so
// parallel runs never see half an entry.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace megatriage {

class RunCache {
 public:
  /// A disabled cache (every lookup misses, nothing is written).
  RunCache() = default;
  /// A cache in `dir` (created on first write, mode 0700). Empty `dir`: disabled.
  explicit RunCache(std::string dir);

  /// The process-wide cache: $MEGATRIAGE_CACHE_DIR, else $XDG_CACHE_HOME/megatriage, else
  /// $HOME/.cache/megatriage. MEGATRIAGE_CACHE_DIR=off (or set but empty) disables it.
  static const RunCache& from_environment();

  bool enabled() const { return !dir_.empty(); }

  /// The entry name for `content` of kind `kind` (letters and '-'): `<kind>-<32 hex digits>`.
  std::string key(std::string_view kind, std::string_view content) const;
  /// The entry's bytes, if it exists, is a regular file and holds at most `max_bytes`.
  std::optional<std::string> get(const std::string& key, std::size_t max_bytes = 1 << 20) const;
  /// Stores an entry (replacing one of the same key). Keeps at most kMaxEntries entries: the
  /// oldest others go. Failures are silent.
  void put(const std::string& key, std::string_view bytes) const;

  static constexpr std::size_t kMaxEntries = 256;

 private:
  std::string dir_;
  std::string identity_;  // this executable's; empty when unknown (then the cache is disabled)
};

}  // namespace megatriage
