#include "extract/stamp_run.h"

#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace megatriage {
namespace {

// The head compared 16 bytes at a time from a padded copy: a call to memcmp for a dozen bytes
// cost more than the rest of a line's walk.
class HeadBytes {
 public:
  explicit HeadBytes(std::string_view head) : size_(head.size()) {
    if (size_ <= sizeof(bytes_)) std::memcpy(bytes_, head.data(), size_);
    else long_head_ = head;
  }

  // Whether the `available` bytes at p start with the head.
  bool at(const char* p, std::size_t available) const {
    if (available < size_) return false;
#if defined(__SSE2__)
    if (long_head_.empty() && available >= padded()) {
      for (std::size_t k = 0; k < size_; k += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes_ + k));
        const unsigned equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
        const std::size_t left = size_ - k;
        const unsigned wanted = left >= 16 ? 0xffffU : (1U << left) - 1;
        if ((equal & wanted) != wanted) return false;
      }
      return true;
    }
#endif
    return std::memcmp(p, long_head_.empty() ? bytes_ : long_head_.data(), size_) == 0;
  }

 private:
  std::size_t padded() const { return (size_ + 15) / 16 * 16; }
  std::size_t size_;
  char bytes_[64] = {};  // the head, then zeros (loaded, never compared)
  std::string_view long_head_;  // over 64 bytes: compared in place
};

}  // namespace

bool stamp_run_starts(const LineSink::StampRun& run, std::string_view head) {
  if (run.hit_count == 0 || head.empty()) return false;
  const TriggerScanner::Hit& first = run.hits[0];
  const std::size_t end = first.end - run.shift, time_at = head.size() - 1;
  if (first.literal != TriggerScanner::kStamp || first.needle || end < time_at + 7 || end >= run.text.size())
    return false;
  const std::size_t start = end - 7 - time_at;
  if (start != 0 && run.text[start - 1] != '\n') return false;
  // Writers' heads differ most often in their last bytes (a rank, the hour): those first.
  const char* p = run.text.data() + start;
  if (head.size() >= 8) {
    std::uint64_t a = 0, b = 0;
    std::memcpy(&a, p + head.size() - 8, 8);
    std::memcpy(&b, head.data() + head.size() - 8, 8);
    if (a != b) return false;
  }
  return std::memcmp(p, head.data(), head.size()) == 0;
}

StampRunWalk walk_stamp_run(const LineSink::StampRun& run, std::string_view head, const TimeOfDayLayout& layout,
                            long long floor, bool check_steps_back) {
  StampRunWalk walk;
  const std::size_t time_at = layout.time_at;
  if (head.size() != time_at + 1 || layout.ends_line || run.text.empty()) return walk;
  const char* text = run.text.data();
  const std::size_t size = run.text.size();
  const HeadBytes expected(head);
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const TimeOfDayReader reader(layout);
  std::size_t pending = kNone;  // start of the last line read, whose end is not known yet
  std::size_t taken = kNone;    // start of the last line taken
  std::size_t previous_start = 0;
  std::size_t i = 0;
  for (; i < run.hit_count; ++i) {
    const TriggerScanner::Hit& h = run.hits[i];
    if (h.literal != TriggerScanner::kStamp || h.needle) break;
    const std::size_t end = h.end - run.shift;  // the last digit of `HH:MM:SS`
    if (end < time_at + 7 || end >= size) break;
    const std::size_t start = end - 7 - time_at;
    // A line starts there (a second stamp of a line does not: no '\n' before its head).
    if (start != 0 && text[start - 1] != '\n') break;
    // No line before it is over the limit (the lines between are shorter than the gap).
    if (start - previous_start > run.max_line + 1) break;
    if (!expected.at(text + start, size - start)) break;
    int seconds = 0;
    if (!reader.seconds_at(text + start + time_at, size - start - time_at, seconds)) break;
    if (check_steps_back && seconds < floor) break;
    // The line before ends before this one starts, and held no other hit: it is taken.
    if (pending != kNone) {
      ++walk.lines;
      taken = pending;
    }
    walk.bytes = start;
    pending = start;
    previous_start = start;
    floor = seconds - 60;
  }
  // The last line read: taken when it ends in the text, before the next hit.
  if (pending != kNone) {
    const std::size_t from = pending + time_at + 8;
    const auto* nl = static_cast<const char*>(std::memchr(text + from, '\n', size - from));
    if (nl != nullptr) {
      const auto line_end = static_cast<std::size_t>(nl - text);
      const bool alone = i == run.hit_count || run.hits[i].end - run.shift > line_end;
      if (alone && line_end - pending <= run.max_line) {
        ++walk.lines;
        taken = pending;
        walk.bytes = line_end + 1;
      }
    }
  }
  if (taken != kNone) walk.last = reader.time_of_day(text + taken + time_at);
  return walk;
}

}  // namespace megatriage
