// Lines that no line rule matched, remembered without their time of day. A noisy log repeats
// the same warning every iteration on every rank (`[W1129 10:00:00.015838 ...] Warning: ...`),
// each copy holding a rule's needle and each costing that rule's regex, only to fail again:
// copies that differ only in their stamp fail alike, so the second one skips the regexes.
// This holds because no rule may depend on the time of day a line was printed (rules/README.md),
// and because the rules see a line's body only: the caller gives the body, after the rank,
// host and launcher prefixes, so that the same warning of every rank is one entry.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_set>

#include "base/sampled_hash.h"

namespace megatriage {

class UnmatchedLines {
 public:
  /// Whether a line body that matched no rule had `body`'s text (its `HH:MM:SS` starting at
  /// `stamp_at`), up to the digits of its stamp. Remembers where the stamp is, for remember().
  bool seen(std::string_view body, std::size_t stamp_at) {
    // Lines whose texts vary beyond their stamps (ids, counters, durations in every c10 INFO
    // line) seldom repeat: once a file's lines have shown that, the memo stops costing a
    // lookup of each (answering "not seen" is always right).
    if (given_up_) return false;
    if (++asked_ == kTrial) given_up_ = found_ * kWorthIt < asked_;
    std::size_t end = stamp_at + 8;  // the stamp: `HH:MM:SS` and its fraction
    if (end < body.size() && (body[end] == '.' || body[end] == ',')) {
      std::size_t digits = end + 1;
      while (digits < body.size() && body[digits] >= '0' && body[digits] <= '9') ++digits;
      if (digits > end + 1) end = digits;
    }
    last_ = Parts{body.substr(0, stamp_at), end < body.size() ? body.substr(end) : std::string_view{}};
    const bool found = lines_.find(last_) != lines_.end();
    found_ += found;
    return found;
  }

  void clear() { lines_.clear(); }

  /// Keeps the line the last seen() looked up: it matched no rule. Valid while that line is.
  void remember() {
    // Lines that never repeat (a counter in each) would only fill memory.
    if (!given_up_ && lines_.size() < kMaxLines) lines_.insert(Key{std::string(last_.head), std::string(last_.tail)});
  }

 private:
  // A line without its stamp: the text before it and the text after it. Looked up as views
  // into the line (no copy per line), kept as strings.
  struct Parts {
    std::string_view head, tail;
  };
  struct Key {
    std::string head, tail;
  };
  // Hashes a few words at the ends of both parts and their lengths, not every byte: the memo is
  // asked about most lines of a noisy file, and equal hashes are compared in full anyway. Lines
  // of one kind differ at the end (a duration, a sequence number) or just after the stamp.
  struct Hash {
    using is_transparent = void;
    static std::size_t of(std::string_view head, std::string_view tail) {
      std::uint64_t h = hash_seed(head.size()) ^ tail.size();
      if (!head.empty()) h = mix_word(h, text_word(head, head.size() > 8 ? head.size() - 8 : 0));
      if (!tail.empty()) {
        h = mix_word(h, text_word(tail, 0));
        if (tail.size() > 8) h = mix_word(h, text_word(tail, 8));
        if (tail.size() > 16) h = mix_word(h, text_word(tail, tail.size() - 16));
        if (tail.size() > 24) h = mix_word(h, text_word(tail, tail.size() - 8));
      }
      return static_cast<std::size_t>(h);
    }
    std::size_t operator()(const Parts& p) const { return of(p.head, p.tail); }
    std::size_t operator()(const Key& k) const { return of(k.head, k.tail); }
  };
  struct Equal {
    using is_transparent = void;
    static bool same(std::string_view a, std::string_view b, std::string_view c, std::string_view d) {
      return a == c && b == d;
    }
    bool operator()(const Key& x, const Key& y) const { return same(x.head, x.tail, y.head, y.tail); }
    bool operator()(const Parts& x, const Key& y) const { return same(x.head, x.tail, y.head, y.tail); }
    bool operator()(const Key& x, const Parts& y) const { return same(x.head, x.tail, y.head, y.tail); }
  };

  static constexpr std::size_t kMaxLines = 1024;
  static constexpr std::size_t kTrial = 4096;  // lines asked about before judging the memo
  static constexpr std::size_t kWorthIt = 8;   // ... which must have found one in this many
  std::size_t asked_ = 0, found_ = 0;
  bool given_up_ = false;
  Parts last_;
  std::unordered_set<Key, Hash, Equal> lines_;
};

}  // namespace megatriage
