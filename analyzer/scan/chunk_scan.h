// Split stage, parallel part: ONE large plain file is read and trigger-searched in chunks by
// helper threads, ahead of the extractor, which takes the bytes (ChunkSource) and the hits in
// file order. Only reading and searching run in parallel; everything with state (streams,
// tracebacks, stamps) stays in one thread, so nothing needs stitching at chunk borders: a chunk
// owns the lines that START in it, and a literal never spans lines, so the hits are those of
// one search over the whole file.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "input/reader.h"
#include "scan/trigger_scan.h"

namespace megatriage {

class ChunkedHits {
 public:
  /// Starts `helpers` threads searching `path` (plain, `size` bytes) in chunks of `chunk_bytes`.
  /// `max_line_bytes` bounds how far a chunk reads past its end to finish its last line (longer
  /// lines are cut, and cut lines are examined whatever the hits).
  ChunkedHits(const std::string& path, std::uint64_t size, const TriggerScanner& scanner,
              std::size_t chunk_bytes, std::size_t max_line_bytes, unsigned helpers);
  ~ChunkedHits();
  ChunkedHits(const ChunkedHits&) = delete;
  ChunkedHits& operator=(const ChunkedHits&) = delete;

  /// Hits in [begin, begin + length) as offsets from `begin`, ascending, appended to `out`; the
  /// range must start and end at line borders and ranges must come in file order. Waits for the
  /// helpers. False when the range is not covered (past `size`, or a chunk failed to read): the
  /// caller then searches the bytes itself.
  bool hits_in(std::uint64_t begin, std::size_t length, std::vector<TriggerScanner::Hit>& out);

  /// Copies file bytes from `offset` on (reads must be sequential) out of the chunk buffers;
  /// returns 0 at `size` or when a chunk could not be read (the caller then reads the file
  /// itself from there).
  std::size_t read_bytes(std::uint64_t offset, char* out, std::size_t capacity);

  /// The reader asks for no more hits: it searches the bytes itself from here on (it removes
  /// terminal escapes from them first, SearchOptions::strip_escapes). Chunks are then only
  /// read ahead, not searched, and each is let go once the reader is past it.
  void stop_searching();

 private:
  struct Chunk {
    bool done = false, failed = false;
    std::vector<TriggerScanner::Hit> hits;  // offsets from `base`
    std::uint64_t base = 0;
    std::vector<char> bytes;          // file bytes from `from` on, until the reader took them
    std::uint64_t from = 0;
  };
  // Requires: lock held. Waits until chunk `k` is searched, searching it here if no helper has.
  Chunk& wait_for(std::unique_lock<std::mutex>& lock, std::uint64_t k);
  void work();
  void take_and_search(std::unique_lock<std::mutex>& lock);
  void search_chunk(std::uint64_t index, Chunk& chunk) const;

  const int fd_;                   // opened once; pread is safe from every thread
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
  std::atomic<bool> searching_{true};  // stop_searching() not called
  std::vector<std::thread> threads_;
  std::vector<std::vector<char>> spare_;  // chunk buffers the reader is done with
};

/// The file's bytes out of a ChunkedHits; when a chunk could not be read (the file shrank or
/// changed), `fallback` — the file opened the ordinary way — takes over from that offset.
class ChunkSource : public ByteSource {
 public:
  /// The chunks were cut for `file.size_bytes`; a file found longer at the end is reported like
  /// the ordinary reader does (read.file-grew).
  ChunkSource(ChunkedHits& chunks, std::unique_ptr<ByteSource> fallback, const SourceFile& file,
              DiagnosticSink& diags)
      : chunks_(chunks), fallback_(std::move(fallback)), file_(file), diags_(diags) {}
  std::size_t read(char* buffer, std::size_t capacity) override;

 private:
  ChunkedHits& chunks_;
  std::unique_ptr<ByteSource> fallback_;
  const SourceFile& file_;
  DiagnosticSink& diags_;
  bool ended_ = false;
  std::uint64_t offset_ = 0;
  bool on_fallback_ = false;
};

}  // namespace megatriage
