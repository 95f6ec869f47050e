// Extract stage: assemble Python tracebacks from the lines of ONE stream (one file + prefix
// rank). Handles chained exceptions, 3.11+ caret lines, exception groups, multi-line messages
// and `[Previous line repeated]`. A small state machine, idle until a `Traceback` header, a
// `File "..."` frame line (a traceback whose header is not in the log: an excerpt, a cut log)
// or a lone exception line (`torch.OutOfMemoryError: CUDA out of memory ...` with no traceback
// around it); the last two yield tracebacks marked `headerless`.
// Does not classify: it yields the frames and the exception text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/traceback.h"

namespace megatriage {

/// What a line looks like as a Python exception line `<dotted.name>[(Inner)][: message]`, e.g.
/// `torch.OutOfMemoryError: CUDA out of memory`, `StopIteration`,
/// `ray.exceptions.RayTaskError(ModuleNotFoundError): ray::...`. The name starts the line.
struct ExceptionLineShape {
  bool exception = false;   // has the shape (a Warning class included)
  bool known = false;       // the class name ends in Error, Exception, Failure, Exit, Interrupt,
                            // Iteration (not a bare `Error`): no source line reads like that
  bool error = false;       // ... in Error, Exception or Failure
  bool warning = false;     // the class name ends in Warning: never failure evidence
  bool colon = false;       // `Name:` (with or without a message after it)
  bool message = false;     // text after `Name: `
  std::size_t name_end = 0;  // where the name (and its `(Inner)`) ends
};
/// The shape of `body` (after the stream's prefixes). A name not in `known` counts only with a
/// colon and a capitalised last part (`torch._dynamo.exc.Unsupported: ...`).
ExceptionLineShape exception_line_shape(std::string_view body);
/// A line that is failure evidence by itself, with no traceback around it: an Error/Exception/
/// Failure class, not a Warning, followed by `:`.
bool is_lone_exception_line(std::string_view body);
/// Parses a frame line `  File "path", line N, in func`. Tolerates what interleaved or mangled
/// output leaves before `File "`: any indentation (none included), caret runs and a
/// `[Previous line repeated N more times]` glued in front. Exposed for tests.
bool parse_frame_line(std::string_view body, Frame& frame, std::size_t max_bytes = 4096);

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
  // Idle: starts a headerless traceback when the line is a frame or a lone exception line.
  void start_headerless(std::string_view body, std::uint64_t line_number, std::uint64_t offset);
  void set_exception(ExceptionBlock& block, std::string_view body, std::uint64_t line_number,
                     std::uint64_t offset);
  bool looks_like_log_line(std::string_view body) const;

  TracebackLimits limits_;
  State state_ = State::Idle;
  Traceback current_;
  std::vector<Traceback> ready_;
  std::size_t message_lines_ = 0;
  std::size_t group_margin_ = 0;  // bytes of exception-group margin to strip
  bool after_frame_ = false;       // the previous line was a frame line (its source may follow)
  bool block_headerless_ = false;  // the current block started at a frame, not at a header
  // Who drew the traceback, told by its header: CPython (or a logger that keeps its shape),
  // IPython (the exception named first), rich (a box).
  enum class Drawing { CPython, Notebook, Rich };
  Drawing drawing_ = Drawing::CPython;
  std::string wrapped_path_;       // rich: a frame's path wrapped alone onto the line before
  // A lone exception line takes at most this many continuation lines (a message that wraps);
  // SIZE_MAX otherwise.
  std::size_t tail_left_ = static_cast<std::size_t>(-1);
};

/// Strips an exception-group margin (`  | `, `  +-+----`, `    +---`) from a line; returns the
/// inner text. Exposed for tests.
std::string_view strip_group_margin(std::string_view body);

std::string to_debug_string(const Traceback& tb);

}  // namespace megatriage
