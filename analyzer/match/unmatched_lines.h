// Lines that no line rule matched, remembered without their time of day. A noisy log repeats
// the same warning every iteration on every rank (`[W1129 10:00:00.015838 ...] Warning: ...`),
// each copy holding a rule's needle and each costing that rule's regex, only to fail again:
// copies that differ only in their stamp fail alike, so the second one skips the regexes.
// This holds because no rule may depend on the time of day a line was printed (rules/README.md),
// and because the rules see a line's body only: the caller gives the body, after the rank,
// host and launcher prefixes, so that the same warning of every rank is one entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/sampled_hash.h"

namespace megatriage {

class UnmatchedLines {
 public:
  /// Whether a line body that matched no rule had `body`'s text (its `HH:MM:SS` starting at
  /// `stamp_at`), up to the digits of its stamp. Remembers where the stamp is, for remember().
  bool seen(std::string_view body, std::size_t stamp_at) {
    // Lines whose texts vary beyond their stamps (ids, counters, durations in every c10 INFO
    // line) seldom repeat: once a file's lines have shown that, the memo stops costing a
    // lookup of each (answering "not seen" is always right). A lookup that misses costs about
    // what a hit saves (the rules turn most lines down quickly), so the memo must find most.
    if (given_up_) return false;
    if (++asked_ == kTrial) given_up_ = found_ * kWorthIt.den < asked_ * kWorthIt.num;
    std::size_t end = stamp_at + 8;  // the stamp: `HH:MM:SS` and its fraction
    if (end < body.size() && (body[end] == '.' || body[end] == ',')) {
      std::size_t digits = end + 1;
      while (digits < body.size() && body[digits] >= '0' && body[digits] <= '9') ++digits;
      if (digits > end + 1) end = digits;
    }
    head_ = body.substr(0, stamp_at);
    tail_ = end < body.size() ? body.substr(end) : std::string_view{};
    hash_ = hash_of(head_, tail_);
    const bool found = !slots_.empty() && find_slot() != kNotFound;
    found_ += found;
    return found;
  }

  void clear() {
    slots_.clear();
    texts_.clear();
    size_ = 0;
  }

  /// Keeps the line the last seen() looked up: it matched no rule. Valid while that line is.
  void remember() {
    // Lines that never repeat (a counter in each) would only fill memory.
    if (given_up_ || size_ >= kMaxLines || texts_.size() + head_.size() + tail_.size() > kMaxBytes) return;
    if (slots_.empty()) slots_.assign(kFirstSlots, Slot{});
    if (find_slot() != kNotFound) return;
    // Lines of one kind whose sampled words agree (they differ in the middle: a rank, an id)
    // share a hash; a few of them are kept, not a run of slots that every lookup would walk.
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash_ & mask, same_hash = 0;
    for (; slots_[i].used; i = (i + 1) & mask)
      if (slots_[i].hash == hash_ && ++same_hash == kMaxSameHash) return;
    slots_[i] = Slot{hash_, static_cast<std::uint32_t>(texts_.size()), static_cast<std::uint32_t>(head_.size()),
                 static_cast<std::uint32_t>(tail_.size()), true};
    texts_.append(head_);
    texts_.append(tail_);
    if (++size_ * 2 > slots_.size()) grow();
  }

 private:
  // A line kept: its hash and where its text before and after the stamp lies in texts_.
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t at = 0, head = 0, tail = 0;
    bool used = false;
  };

  // Hashes a few words at the ends of both parts and their lengths, not every byte: the memo is
  // asked about most lines of a noisy file, and equal hashes are compared in full anyway. Lines
  // of one kind differ at the end (a duration, a sequence number) or just after the stamp.
  static std::uint64_t hash_of(std::string_view head, std::string_view tail) {
    std::uint64_t h = hash_seed(head.size()) ^ tail.size();
    if (!head.empty()) h = mix_word(h, text_word(head, head.size() > 8 ? head.size() - 8 : 0));
    if (!tail.empty()) {
      h = mix_word(h, text_word(tail, 0));
      if (tail.size() > 8) h = mix_word(h, text_word(tail, 8));
      if (tail.size() > 32) h = mix_word(h, text_word(tail, tail.size() / 2));
      if (tail.size() > 16) h = mix_word(h, text_word(tail, tail.size() - 16));
      if (tail.size() > 24) h = mix_word(h, text_word(tail, tail.size() - 8));
    }
    return h;
  }

  // The slot holding the last line seen(), or kNotFound. An open-addressing table with no
  // removals: a lookup is a hash, an index and a compare, where a node-based set walked
  // pointers and took a division (docs/performance.md, "Figures behind code comments").
  std::size_t find_slot() const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash_ & mask; slots_[i].used; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.hash != hash_ || slot.head != head_.size() || slot.tail != tail_.size()) continue;
      const char* text = texts_.data() + slot.at;
      if (std::string_view(text + slot.head, slot.tail) == tail_ && std::string_view(text, slot.head) == head_)
        return i;
    }
    return kNotFound;
  }

  // Doubles the table, never past half full: a file of a few hundred lines (a rank's stderr
  // in a torchrun tree of thousands) keeps a few lines and should not clear a full table.
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (!slot.used) continue;
      std::size_t i = slot.hash & mask;
      while (slots_[i].used) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  static constexpr std::size_t kMaxLines = 1024;
  static constexpr std::size_t kMaxBytes = 1 << 20;    // ... and their texts
  static constexpr std::size_t kMaxSameHash = 4;       // ... and lines of one hash
  static constexpr std::size_t kFirstSlots = 64;  // a power of two; doubled when half full
  static constexpr std::size_t kNotFound = static_cast<std::size_t>(-1);
  static constexpr std::size_t kTrial = 4096;  // lines asked about before judging the memo
  // ... of which it must have found this share: below it (an srun file of c10 lines, half of
  // them INFO lines with a duration in each) the memo cost more than it saved; per-rank files
  // whose c10 lines are one warning find nearly all (docs/performance.md).
  static constexpr struct { std::size_t num, den; } kWorthIt{2, 3};
  std::size_t asked_ = 0, found_ = 0;
  bool given_up_ = false;
  // The line seen() looked up last: its text before and after the stamp, and their hash.
  std::string_view head_, tail_;
  std::uint64_t hash_ = 0;
  std::vector<Slot> slots_;  // a power of two of them, or none before the first line kept
  std::string texts_;        // the kept lines' texts, one after another
  std::size_t size_ = 0;     // lines kept
};

}  // namespace megatriage
