// zstd frame layout walker; see zstd_frames.h. Field sizes follow RFC 8878, section 3.1.
#include "input/zstd_frames.h"

#include <algorithm>

namespace megatriage {

namespace {

constexpr std::uint32_t kZstdMagic = 0xFD2FB528u;
// Skippable frames use any of 16 magic numbers: 0x184D2A50 to 0x184D2A5F.
constexpr std::uint32_t kSkippableMagicMask = 0xFFFFFFF0u;
constexpr std::uint32_t kSkippableMagic = 0x184D2A50u;
constexpr unsigned kRleBlock = 1;       // a block of one byte repeated: one byte in the stream
constexpr unsigned kReservedBlock = 3;  // never valid: the input is not (or no longer) zstd

}  // namespace

std::size_t ZstdFrameTracker::feed(const unsigned char* p, std::size_t n) {
  const std::size_t start = n;
  while (n > 0 && !lost_) {
    if (skip_ > 0) {
      std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, n));
      skip_ -= k;
      p += k;
      n -= k;
      if (skip_ == 0) after_skip();
    } else {
      acc_[have_++] = *p++;
      --n;
      if (have_ == need_) on_field();
    }
    if (frame_done_) {
      frame_done_ = false;
      break;
    }
  }
  return lost_ ? start : start - n;
}

std::uint32_t ZstdFrameTracker::little_endian(std::size_t bytes) const {
  std::uint32_t v = 0;
  for (std::size_t i = bytes; i-- > 0;) v = (v << 8) | acc_[i];
  return v;
}

void ZstdFrameTracker::expect(State s, std::size_t bytes) {
  // Expecting a magic number again means the previous frame has ended (the first magic of
  // the stream is expected by the initial state, not through here).
  frame_done_ = s == State::Magic;
  if (frame_done_) ++frames_completed_;
  state_ = s;
  need_ = bytes;
  have_ = 0;
}

void ZstdFrameTracker::skip(std::uint64_t bytes, After then) {
  have_ = 0;
  after_ = then;
  skip_ = bytes;
  if (skip_ == 0) after_skip();
}

void ZstdFrameTracker::after_skip() {
  switch (after_) {
    case After::Magic: expect(State::Magic, 4); break;
    case After::Header: expect(State::BlockHeader, 3); break;
    case After::Block:
      if (!last_block_) {
        expect(State::BlockHeader, 3);
      } else if (checksum_) {
        skip(4, After::Checksum);
      } else {
        expect(State::Magic, 4);
      }
      break;
    case After::Checksum: expect(State::Magic, 4); break;
  }
}

void ZstdFrameTracker::on_field() {
  switch (state_) {
    case State::Magic: {
      const std::uint32_t magic = little_endian(4);
      if (magic == kZstdMagic) {
        expect(State::Descriptor, 1);
      } else if ((magic & kSkippableMagicMask) == kSkippableMagic) {
        expect(State::SkipSize, 4);
      } else {
        lost_ = true;
      }
      break;
    }
    case State::SkipSize: skip(little_endian(4), After::Magic); break;
    case State::Descriptor: {
      // Frame header descriptor: content-size flag (2 bits), single segment, unused,
      // reserved, checksum, dictionary-id flag (2 bits). What follows it in the header is a
      // window descriptor (absent for a single segment), the dictionary id and the content
      // size, whose widths these flags give.
      const unsigned d = acc_[0];
      const unsigned fcs_flag = d >> 6;
      const bool single_segment = (d >> 5) & 1;
      checksum_ = (d >> 2) & 1;
      static constexpr unsigned kDictBytes[] = {0, 1, 2, 4};
      static constexpr unsigned kFcsBytes[] = {0, 2, 4, 8};
      const std::uint64_t rest = (single_segment ? 0 : 1) + kDictBytes[d & 3] +
                                 (fcs_flag == 0 ? (single_segment ? 1 : 0) : kFcsBytes[fcs_flag]);
      skip(rest, After::Header);
      break;
    }
    case State::BlockHeader: {
      // Block header, 3 bytes little-endian: last-block bit, type (2 bits), size (21 bits).
      const std::uint32_t h = little_endian(3);
      last_block_ = h & 1;
      const unsigned type = (h >> 1) & 3;
      const std::uint32_t size = h >> 3;
      if (type == kReservedBlock) {
        lost_ = true;
        break;
      }
      skip(type == kRleBlock ? 1 : size, After::Block);
      break;
    }
  }
}

}  // namespace megatriage
