// `--context N`: the raw lines around the root cause, read back from its file once the analysis
// is done, so that the scan never keeps lines it might show. Reads one file; decides nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "input/discover.h"
#include "input/reader.h"
#include "model/report.h"
#include "scan/line_splitter.h"

namespace megatriage {

/// Each context line keeps at most this many bytes (the rest is cut, with `…`): a 1 MiB line of
/// JSON beside the root is not worth a screen.
inline constexpr std::size_t kContextLineBytes = 400;

/// Lines `line - n` to `line + n` of `file`, numbered as the analysis numbered them (the same
/// splitter: CRLF, `\r` frames, NULs), each cut to kContextLineBytes. `offset` is the byte
/// offset where `line` starts: a plain file is read only in a window around it (at most
/// kContextWindowBytes each side, so lines that do not fit are left out); a compressed one from
/// its start to `line + n`. Empty when `n` or `line` is 0 or the file cannot be opened again;
/// read problems are not reported twice (the analysis did).
std::vector<ContextLine> read_context_lines(SourceFile file, std::uint64_t line, std::uint64_t offset,
                                            std::size_t n, const ReadLimits& limits, const SplitOptions& split);

/// Lines `line - n` to `line + n` among `kept` (sorted by line): the context of a file that a
/// partial report kept because the merge cannot read it (app/partial_report.h).
std::vector<ContextLine> kept_context_lines(const std::vector<ContextLine>& kept, std::uint64_t line, std::size_t n);

/// The lines within `n` of each of `anchors` (line and byte offset where it starts, sorted by
/// line), each once, sorted: what a partial report keeps. Windows that overlap are read once.
std::vector<ContextLine> read_context_around(SourceFile file, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& anchors,
                                             std::size_t n, const ReadLimits& limits, const SplitOptions& split);

/// How far before and after the root's line a plain file is read for its context.
inline constexpr std::uint64_t kContextWindowBytes = 1 << 20;

}  // namespace megatriage
