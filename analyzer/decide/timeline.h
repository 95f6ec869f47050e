// Merge stage: order every file's events on one time line. Key: best time estimate (explicit
// stamp, else the upper bound from the stream's next stamp, else the inherited lower bound),
// then file id, then line. Events with no time at all follow in file order.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "extract/extract.h"

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

/// merge_timeline in two steps, for a caller with a per-file pass of its own to share (the
/// report resolves a file's years and reads its events on the same thread, while they are in
/// cache): add_file(i) for every file, then merge(). add_file may run concurrently for
/// distinct files. Requires: `files` outlives the merge and its entries; event counts do not
/// change after construction.
class TimelineMerge {
 public:
  explicit TimelineMerge(const std::vector<FileResult>& files);
  void add_file(std::size_t index);
  std::vector<TimelineEntry> merge();

  // One event's place in the sort: its ordering time as an unsigned number that sorts like the
  // signed one, and where the event is (file index, index over all files' events). An event
  // without a time is marked in `file` (file indexes stay below 2^31).
  struct Key {
    std::uint64_t order;
    std::uint32_t file;
    std::uint32_t position;
  };

 private:
  const std::vector<FileResult>& files_;
  std::vector<std::uint32_t> first_;  // position of each file's first event over all files
  std::vector<const Event*> events_;  // each file's events: the output looks up no FileResult
  // Written by add_file only: not zeroed first (on a big job its pages are first touched by
  // the threads that fill them).
  std::unique_ptr<Key[]> keys_;
  std::size_t key_count_ = 0;
  std::vector<char> own_ids_;         // every event of the file carries the file's id
};

}  // namespace megatriage
