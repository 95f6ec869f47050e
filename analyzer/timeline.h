// Merge stage: order every file's events on one time line. Key: best time estimate (explicit
// stamp, else the upper bound from the stream's next stamp, else the inherited lower bound),
// then file id, then line. Events with no time at all follow in file order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "extract.h"

namespace megatriage {

/// A reference to one event of one FileResult. Valid while the FileResults live.
struct TimelineEntry {
  const Event* event = nullptr;
  const FileResult* file = nullptr;
  std::optional<std::int64_t> key_us;
};

/// The best single time for ordering an event: explicit stamp; for an unstamped event the
/// upper bound when known (the traceback was printed before it), else its inherited stamp.
std::optional<std::int64_t> ordering_time(const Event& e);

/// `threads`: how many threads (the caller included) may read the events; same result for any.
std::vector<TimelineEntry> merge_timeline(const std::vector<FileResult>& files, unsigned threads = 1);

}  // namespace megatriage
