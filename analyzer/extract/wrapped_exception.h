// Extract stage: exceptions that carry the real error inside their message. A wrapper prints the
// inner exception as text: torch.distributed.checkpoint's CheckpointException lists each rank's
// traceback and exception line, Ray's RayTaskError(ModuleNotFoundError) repeats the inner
// `ModuleNotFoundError: ...` line, torch.multiprocessing's ProcessRaisedException and Ray's
// "failed to import on the worker" RuntimeError end their message with `...error:` and print the
// whole inner traceback after it. Pure text helpers; the traceback builder and the analyzer use
// them to keep the inner error with its wrapper.
#pragma once

#include <string_view>
#include <vector>

#include "model/traceback.h"

namespace megatriage {

/// True when `line` (leading blanks ignored) reads as a Python exception line: a dotted name
/// whose last part ends in Error, Exception, Exit, Interrupt, Failure or Fault (optionally with
/// the inner type in parentheses, `RayTaskError(ImportError)`), then `:` and the message, or
/// the name alone. Frame lines, `Traceback ...` headers and prose are not.
bool is_exception_line(std::string_view line);

/// The exception lines embedded in a message tail ('\n'-joined continuation lines), in printed
/// order, leading blanks removed. Views into `tail`.
std::vector<std::string_view> embedded_exception_lines(std::string_view tail);

/// True when the block's message ends by announcing more (its last non-blank line, of the tail
/// or else the exception line, ends with ':'), or its exception names the inner type it wraps
/// (`RayTaskError(ImportError): ...`): a `Traceback` header that follows belongs to this
/// message (`... the following error:`), not to a new, separate failure.
bool announces_traceback(const ExceptionBlock& b);

}  // namespace megatriage
