// A Python traceback as the report keeps it: frames, exception blocks, how they are chained.
// Plain data; extract/traceback.h assembles it from log lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/frame_list.h"

namespace megatriage {

/// One exception block of a (possibly chained) traceback.
struct ExceptionBlock {
  std::uint64_t header_line = 0;     // line of `Traceback (most recent call last):`
  std::uint64_t exception_line = 0;  // line of the final `Type: message`
  std::uint64_t exception_offset = 0;  // byte offset of that line
  std::string exception;             // the final line, as printed (without stream prefix)
  std::string message_tail;          // continuation lines of a multi-line message, '\n'-joined
  FrameList frames;                  // oldest first, capped
  bool frames_truncated = false;
  std::size_t frames_seen = 0;       // frames printed (frames.size() unless truncated)
  bool message_truncated = false;    // exception text or message tail cut by the limits
  // Printed inside the previous block's message: a wrapper carrying the real error (`Original
  // Traceback (most recent call last):`, `... the following error:` and a traceback).
  bool embedded = false;
};

/// How the blocks of a chained traceback are linked (the separator line Python prints).
enum class ChainKind : std::uint8_t {
  None,     // one block, or blocks without a separator
  Cause,    // "The above exception was the direct cause of the following exception:"
  Context,  // "During handling of the above exception, another exception occurred:"
};

/// "cause", "context", or "" for None: the debug string's spelling.
const char* chain_kind_name(ChainKind k);

/// A finished traceback: blocks in printed order (oldest exception first).
struct Traceback {
  std::vector<ExceptionBlock> blocks;
  ChainKind chain_kind = ChainKind::None;
  bool exception_group = false;
  bool incomplete = false;           // ended (stream end / new header) before an exception line
  // The first block has no `Traceback (most recent call last):` header: frames of an excerpt or
  // a log cut above the header (header_line is then the first frame's line), or a lone
  // exception line (no frames). Weaker evidence than a whole traceback; the report says so.
  bool headerless = false;
  std::uint64_t first_line = 0, last_line = 0;
  std::uint64_t first_offset = 0;    // byte offset of the first header line
};

}  // namespace megatriage
