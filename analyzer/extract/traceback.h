// Extract stage: assemble Python tracebacks from the lines of ONE stream (one file + prefix
// rank). Handles chained exceptions, 3.11+ caret lines, exception groups, multi-line messages
// and `[Previous line repeated]`. A small state machine, idle until a `Traceback` header.
// Does not classify: it yields the frames and the exception text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/traceback.h"

namespace megatriage {

/// Caps that keep one event's memory bounded whatever the input.
struct TracebackLimits {
  std::size_t max_frames = 64;           // keep the first 16 and the last 48 (innermost matter);
                                         // below 64 the head is a quarter of the cap
  std::size_t max_message_lines = 40;
  std::size_t max_text_bytes = 4096;
};

/// Feeds lines of one stream. Usage: call feed() for every line of the stream (body after
/// prefixes); when it returns true a traceback was completed and take() yields it. Call
/// finish() at end of stream.
class TracebackBuilder {
 public:
  explicit TracebackBuilder(TracebackLimits limits = {}) : limits_(limits) {}

  /// True if this builder is inside a traceback (the line will be consumed by it).
  bool active() const { return state_ != State::Idle; }
  /// Feeds one line. Returns true when a traceback has been completed (possibly by this line
  /// starting something else); then call take(). The line itself may start a new traceback.
  bool feed(std::string_view body, std::uint64_t line_number, std::uint64_t offset = 0);
  /// Ends the stream: returns true if a traceback (maybe incomplete) is ready.
  bool finish();
  /// Requires: has_ready(). Yields completed tracebacks in completion order.
  Traceback take();
  bool has_ready() const { return !ready_.empty(); }
  /// True once the current traceback's (first) exception line has been read: it is printed, and
  /// any stamp seen from now on bounds it from above.
  bool past_exception() const {
    return state_ == State::Message || state_ == State::AfterBlank || state_ == State::ChainSeparator;
  }

  /// True for `Traceback (most recent call last):` (also the exception-group form).
  static bool is_header(std::string_view body);

 private:
  enum class State { Idle, Frames, Message, AfterBlank, ChainSeparator };
  void start_block(std::uint64_t line_number, std::uint64_t offset);
  void complete();
  bool looks_like_log_line(std::string_view body) const;

  TracebackLimits limits_;
  State state_ = State::Idle;
  Traceback current_;
  std::vector<Traceback> ready_;
  std::size_t message_lines_ = 0;
  std::size_t group_margin_ = 0;  // bytes of exception-group margin to strip
};

/// Strips an exception-group margin (`  | `, `  +-+----`, `    +---`) from a line; returns the
/// inner text. Exposed for tests.
std::string_view strip_group_margin(std::string_view body);

std::string to_debug_string(const Traceback& tb);

}  // namespace megatriage
