// Split stage, fast path: find the few lines of a buffer that can matter (ripgrep's trick). One
// pass over a whole buffer of complete lines reports where trigger literals (rule needles,
// traceback header, fact and table anchors...) and time-of-day stamps `DD:DD:DD` occur;
// the extractor then visits only those lines, plus every line of a stream that is inside a
// traceback or an arguments dump. RE2 stays the rules engine: this only says "look here".
// The literal search is Vectorscan (libvectorscan-dev) when the build found it, else the
// built-in byte-pair index (pair_index.h), about 3x slower on tools/bench's trees.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.h"
#include "scan/pair_index.h"

namespace megatriage {

class RunCache;

class TriggerScanner {
 public:
  enum class Engine { Best, Builtin };
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  /// A literal some rule needs in a line, with whatever the caller wants back when it is found
  /// (the rule's index; several needles may share one).
  struct Needle {
    std::string text;
    int tag = -1;
  };
  /// Compiles `needles` and `anchors` (byte strings, matched case-sensitively) plus the
  /// time-of-day shape. Needles are what a line must hold for a rule to match it; anchors are
  /// what the other extractors look for. On failure `ok()` is false and a diagnostic says why
  /// (callers then visit every line). With a `cache`, a Vectorscan database compiled before for
  /// the same literals (by this executable) is loaded instead of compiled, and a new one kept.
  TriggerScanner(const std::vector<Needle>& needles, const std::vector<std::string>& anchors,
                 DiagnosticSink& diags, Engine engine = Engine::Best, const RunCache* cache = nullptr);
  ~TriggerScanner();
  TriggerScanner(const TriggerScanner&) = delete;
  TriggerScanner& operator=(const TriggerScanner&) = delete;

  bool ok() const { return database_ != nullptr || builtin_; }
  /// "vectorscan" or "builtin".
  const char* engine_name() const { return database_ != nullptr ? "vectorscan" : "builtin"; }
  std::size_t literal_count() const { return literals_.size(); }
  /// Whether the search was loaded from the RunCache rather than compiled.
  bool from_cache() const { return from_cache_; }

  /// One trigger occurrence: the offset (within the scanned text) of its last byte, and whether
  /// a needle may be there (a needle, or a literal that a needle contains: the search keeps
  /// the shorter of two nested literals). A line whose hits are all anchors or time-of-day
  /// stamps holds no needle, so no rule can match it.
  struct Hit {
    std::uint32_t end;
    std::uint16_t literal;  // which one (needle_tags()); kStamp for a time-of-day stamp
    bool needle;
  };
  static constexpr std::uint16_t kStamp = 0xffff;

  /// The index of literal `text` (a needle or anchor that no shorter literal lies inside), or
  /// kStamp when it is not searched for as itself.
  std::uint16_t find_literal(std::string_view text) const;
  /// The tags of the needles that contain literal `literal` (a Hit's), ascending, unique:
  /// whoever may want a line where it occurs. Empty for anchors and stamps.
  const std::vector<int>& needle_tags(std::uint16_t literal) const;
  /// Whether an anchor may be where literal `literal` (a Hit's) was found: it is one, or lies
  /// inside one. False for time-of-day stamps.
  bool may_be_anchor(std::uint16_t literal) const { return literal < anchor_.size() && anchor_[literal]; }
  /// Marks groups of texts a caller wants to know about per line (at most 8 groups, each text a
  /// needle or anchor, or holding one): bit i of watch_bits(literal) is set when that literal
  /// occurs inside a text of watched[i]. A line holding one of them has a hit with bit i, so a
  /// line without one holds none. A group with a text that no literal lies inside cannot be told
  /// apart: its bit is set for every literal and kStamp, and lines without any hit must be
  /// treated as possibly holding it (see uncertain_watches()). Before watch() is called every
  /// group is uncertain.
  void watch(const std::vector<std::vector<std::string>>& watched);
  std::uint8_t watch_bits(std::uint16_t literal) const {
    return literal < watch_bits_.size() ? watch_bits_[literal] : uncertain_watches_;
  }
  /// The watched texts a line without any hit may still hold (none when each has a literal).
  std::uint8_t uncertain_watches() const { return uncertain_watches_; }

  /// Appends to `hits` every trigger occurrence, in ascending order of `end`. `text` must not be
  /// larger than 4 GiB. Thread-safe (per-thread scratch). Without `stamps`, the time-of-day
  /// stamps are left out (find_stamps() finds them where a caller needs them).
  void scan(std::string_view text, std::vector<Hit>& hits, bool stamps = true) const;
  /// Appends the time-of-day stamps of `text`, in ascending order, each at its place in `text`
  /// plus `shift`: what scan() adds for them.
  static void find_stamps(std::string_view text, std::uint32_t shift, std::vector<Hit>& hits);
  /// Where the first of them ends (its last byte), or npos: a line's first stamp is all that
  /// its hits say of its stamps, and it mostly lies in the line's first bytes.
  static std::size_t first_stamp_end(std::string_view text);

 private:
  // `literals[i]` reports as literal `literal_ids[i]`.
  void compile_vectorscan(const std::vector<std::string>& literals, const std::vector<unsigned>& literal_ids,
                          DiagnosticSink& diags, const RunCache* cache);
  void scan_vectorscan(std::string_view text, std::vector<Hit>& hits) const;
  struct Database;
  Database* database_ = nullptr;
  bool from_cache_ = false;
  std::vector<std::vector<int>> tags_;  // per literal: needle_tags()
  std::vector<std::string> literals_;   // the literals searched, by index
  std::vector<std::uint8_t> watch_bits_;  // per literal: watch()
  std::uint8_t uncertain_watches_ = 0xff;  // no watch(): nothing can be ruled out
  // Built-in engine: literals of 2+ bytes by byte pair.
  bool builtin_ = false;
  PairIndex pairs_;                  // tag: literal index
  std::vector<bool> needle_;         // per literal: a needle may be there
  std::vector<bool> anchor_;         // per literal: an anchor may be there (may_be_anchor)
  // Either engine: one-byte literals, the first in the stamps' pass, others by memchr.
  std::string single_bytes_;
  std::vector<std::uint16_t> single_literal_;  // per byte of single_bytes_
};

}  // namespace megatriage
