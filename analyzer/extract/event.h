// Extract stage output: an Event, something worth knowing that happened at one place of one
// file (a traceback, a line matched by rules, a ChildFailedError entry), as the extractors emit
// it and the later stages read it. Plain data; no extraction logic here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "extract/child_failure_table.h"
#include "extract/traceback.h"
#include "match/rule_matcher.h"
#include "model/types.h"

namespace megatriage {

enum class EventKind : std::uint8_t {
  Traceback,     // a Python traceback (possibly chained)
  RuleLine,      // a single line matched by line rules
  ChildFailure,  // one entry of torchelastic's ChildFailedError table
};

/// A value kept on the heap, for the parts of an Event that most events do not have (a big
/// job has tens of thousands of events, nearly all matched lines): copies are deep, and an
/// empty box reads as a default value and fills on first write.
template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(T value) {
    value_ = std::make_unique<T>(std::move(value));
    return *this;
  }
  const T& operator*() const { return value_ ? *value_ : empty(); }
  const T* operator->() const { return &**this; }
  T& operator*() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }
  T* operator->() { return &**this; }

 private:
  static const T& empty() {
    static const T none{};
    return none;
  }
  std::unique_ptr<T> value_;
};

/// Something worth knowing that happened at one place. Owns its strings (events are rare).
struct Event {
  EventKind kind = EventKind::RuleLine;
  int decisive_block = -1;       // tracebacks: the block whose exception decides (see choose_matches)
  Origin origin;                 // first line (the `Traceback` header for tracebacks)
  std::uint64_t last_line = 0;
  Timestamp time;                // explicit on the line, or inherited (a lower bound)
  std::optional<std::int64_t> before_us;  // first stamped line after it in its stream (upper bound)
  // The stamps as printed; apply_year() turns them into `time` / `before_us`.
  std::optional<CivilTime> civil, before_civil;
  Attribution who;
  std::string text;              // exception line / matched line body (capped)
  Boxed<Traceback> traceback;    // kind == Traceback
  Boxed<ChildFailure> child;     // kind == ChildFailure
  std::vector<RuleMatch> matches;  // best first; for tracebacks, those of the decisive block
  // The line the rules matched, only when `text` is not it (cut to the event cap or UTF-8
  // repaired; rare): captures need the very text matched. See matched_text(). A pointer, not a
  // string: 16 bytes less on each of a big job's tens of thousands of events.
  std::shared_ptr<const std::string> matched_line;
};

/// The text `e.matches` were matched against, for RuleMatcher::fields(): the line of a RuleLine
/// event; the decisive block's exception line, plus "\n" and its message tail when there is one,
/// of a traceback. Allocates; "" for events without matches.
std::string matched_text(const Event& e);

}  // namespace megatriage
