// A Python traceback as the report keeps it: frames, exception blocks, how they are chained.
// Plain data; extract/traceback.h assembles it from log lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace megatriage {

struct Frame {
  std::string path;
  int line = 0;
  std::string function;
  std::string source;  // first source line, stripped; empty when not printed
};

/// One exception block of a (possibly chained) traceback.
struct ExceptionBlock {
  std::uint64_t header_line = 0;     // line of `Traceback (most recent call last):`
  std::uint64_t exception_line = 0;  // line of the final `Type: message`
  std::string exception;             // the final line, as printed (without stream prefix)
  std::string message_tail;          // continuation lines of a multi-line message, '\n'-joined
  std::vector<Frame> frames;         // oldest first, capped
  bool frames_truncated = false;
  std::size_t frames_seen = 0;       // frames printed (frames.size() unless truncated)
  bool message_truncated = false;    // exception text or message tail cut by the limits
};

/// A finished traceback: blocks in printed order (oldest exception first).
struct Traceback {
  std::vector<ExceptionBlock> blocks;
  std::string chain_kind;            // "cause" | "context" | "" (how blocks are linked)
  bool exception_group = false;
  bool incomplete = false;           // ended (stream end / new header) before an exception line
  std::uint64_t first_line = 0, last_line = 0;
  std::uint64_t first_offset = 0;    // byte offset of the first header line
};

}  // namespace megatriage
