// Split stage, parallel part: the trigger search of ONE large plain file, cut into chunks that
// helper threads search ahead of the extractor, which still reads the file front to back. Only
// the search runs in parallel; everything with state (streams, tracebacks, stamps) stays in one
// thread, so nothing needs stitching at chunk borders: a chunk owns the lines that START in it,
// and a literal never spans lines, so the hits are those of one search over the whole file.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "trigger_scan.h"

namespace megatriage {

class ChunkedHits {
 public:
  /// Starts `helpers` threads searching `path` (plain, `size` bytes) in chunks of `chunk_bytes`.
  /// `max_line_bytes` bounds how far a chunk reads past its end to finish its last line (longer
  /// lines are cut, and cut lines are examined whatever the hits).
  ChunkedHits(std::string path, std::uint64_t size, const TriggerScanner& scanner,
              std::size_t chunk_bytes, std::size_t max_line_bytes, unsigned helpers);
  ~ChunkedHits();
  ChunkedHits(const ChunkedHits&) = delete;
  ChunkedHits& operator=(const ChunkedHits&) = delete;

  /// Hits in [begin, begin + length) as offsets from `begin`, ascending, appended to `out`; the
  /// range must start and end at line borders and ranges must come in file order. Waits for the
  /// helpers. False when the range is not covered (past `size`, or a chunk failed to read): the
  /// caller then searches the bytes itself.
  bool hits_in(std::uint64_t begin, std::size_t length, std::vector<std::uint32_t>& out);

 private:
  struct Chunk {
    bool done = false, failed = false;
    std::vector<std::uint64_t> hits;  // absolute offsets
  };
  void work();
  void search_chunk(std::uint64_t index, std::vector<char>& buffer, std::vector<std::uint32_t>& local,
                    Chunk& chunk) const;

  const std::string path_;
  const std::uint64_t size_;
  const TriggerScanner& scanner_;
  const std::size_t chunk_bytes_, max_line_bytes_;
  const std::uint64_t chunk_count_;
  const std::uint64_t max_ahead_;  // chunks searched but not yet consumed: bounds memory

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Chunk> window_;       // chunks [first_, first_ + window_.size())
  std::uint64_t first_ = 0;        // oldest chunk still kept
  std::uint64_t next_ = 0;         // next chunk a helper takes
  std::uint64_t wanted_ = 0;       // last chunk the extractor waits for (may exceed max_ahead_)
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace megatriage
