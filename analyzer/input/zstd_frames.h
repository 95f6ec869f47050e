// Read stage helper: follows the frame layout of a zstd stream (RFC 8878) over its compressed
// bytes, without decoding them, to tell whether the input ended between two frames.
// reader.cc needs this because Boost's zstd decoder reports a clean end when the input stops
// inside a frame. No I/O and no diagnostics here: reader.cc decides what a mid-frame end means.
#pragma once

#include <cstddef>
#include <cstdint>

namespace megatriage {

/// Walks zstd frames (magic, frame header, block headers and their sizes, optional checksum)
/// and skippable frames, byte by byte or block by block, in any split of the input.
/// Not thread-safe; one per stream. Costs no allocation.
class ZstdFrameTracker {
 public:
  /// Follows the layout over the `n` bytes at `p` and returns how many it took: all of them,
  /// or fewer when a frame (zstd or skippable) ends inside them, so that the caller can cut
  /// its delivery at the frame's end. Once the layout is lost it takes everything.
  std::size_t feed(const unsigned char* p, std::size_t n);

  /// True when the bytes fed so far end exactly between frames (or before any byte), or when
  /// the layout was not understood (then the decoder's own errors are to be trusted instead).
  bool at_boundary() const { return lost_ || (state_ == State::Magic && have_ == 0 && skip_ == 0); }

  /// True once the bytes stopped looking like zstd frames: an unknown magic number or a
  /// reserved block type. Nothing is tracked after that.
  bool lost() const { return lost_; }

  /// Frames, zstd and skippable alike, seen to their last byte so far.
  std::uint64_t frames_completed() const { return frames_completed_; }

 private:
  // The field being collected into acc_, or, while skip_ > 0, the one expected after the skip.
  enum class State { Magic, SkipSize, Descriptor, BlockHeader };
  // What comes after the bytes being skipped.
  enum class After { Magic, Header, Block, Checksum };

  std::uint32_t little_endian(std::size_t bytes) const;
  void expect(State s, std::size_t bytes);
  void skip(std::uint64_t bytes, After then);
  void after_skip();
  void on_field();

  State state_ = State::Magic;
  After after_ = After::Magic;
  unsigned char acc_[4] = {};
  std::size_t need_ = 4, have_ = 0;
  std::uint64_t skip_ = 0;
  std::uint64_t frames_completed_ = 0;
  bool checksum_ = false, last_block_ = false, lost_ = false, frame_done_ = false;
};

}  // namespace megatriage
