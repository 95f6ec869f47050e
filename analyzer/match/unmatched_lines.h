// Lines that no line rule matched, remembered without their time of day. A noisy log repeats
// the same warning every iteration on every rank (`[W1129 10:00:00.015838 ...] Warning: ...`),
// each copy holding a rule's needle and each costing that rule's regex, only to fail again:
// copies that differ only in their stamp fail alike, so the second one skips the regexes.
// This holds because no rule may depend on the time of day a line was printed (rules/README.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>

namespace megatriage {

class UnmatchedLines {
 public:
  /// Whether a line that matched no rule had `text` (as given to RuleMatcher::match, its
  /// `HH:MM:SS` starting at `stamp_at`), up to the digits of its stamp. Builds the key that
  /// remember() keeps.
  bool seen(std::string_view text, std::size_t stamp_at) {
    // Lines whose texts vary beyond their stamps (ids, counters, durations in every c10 INFO
    // line) seldom repeat: once a file's lines have shown that, the memo stops costing a copy
    // and a hash of each (answering "not seen" is always right).
    if (given_up_) return false;
    if (++asked_ == kTrial) given_up_ = found_ * kWorthIt < asked_;
    key_.assign(text.substr(0, stamp_at));
    key_ += '\x01';  // the stamp: `HH:MM:SS` and its fraction
    std::size_t end = stamp_at + 8;
    if (end < text.size() && (text[end] == '.' || text[end] == ',')) {
      std::size_t digits = end + 1;
      while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
      if (digits > end + 1) end = digits;
    }
    if (end < text.size()) key_.append(text.substr(end));
    const bool found = lines_.find(key_) != lines_.end();
    found_ += found;
    return found;
  }

  void clear() { lines_.clear(); }

  /// Keeps the line the last seen() looked up: it matched no rule.
  void remember() {
    // Lines that never repeat (a counter in each) would only fill memory.
    if (!given_up_ && lines_.size() < kMaxLines) lines_.insert(key_);
  }

 private:
  static constexpr std::size_t kMaxLines = 1024;
  static constexpr std::size_t kTrial = 4096;  // lines asked about before judging the memo
  static constexpr std::size_t kWorthIt = 8;   // ... which must have found one in this many
  std::size_t asked_ = 0, found_ = 0;
  bool given_up_ = false;
  std::string key_;
  std::unordered_set<std::string> lines_;
};

}  // namespace megatriage
