#include "extract/stamp_run.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace megatriage {
namespace {

// Seconds since midnight of a stamp whose digits the layout has checked, or -1 when out of
// range. Lines of a run mostly share their hour and minute: those bytes equal to the last
// ones read need no second look.
class SecondsOfDay {
 public:
  int at(const char* t) {
    std::uint64_t hour_minute = 0;  // `HH:MM`
    std::memcpy(&hour_minute, t, 5);
    if (hour_minute != hour_minute_) {
      const int hour = two(t), minute = two(t + 3);
      if (hour >= 24 || minute >= 60) return -1;
      hour_minute_ = hour_minute;
      minute_start_ = (hour * 60 + minute) * 60;
    }
    const int second = two(t + 6);
    return second > 60 ? -1 : minute_start_ + second;  // a leap second prints :60
  }

 private:
  static int two(const char* p) { return (p[0] - '0') * 10 + (p[1] - '0'); }
  std::uint64_t hour_minute_ = ~std::uint64_t{0};  // no five bytes read equal it
  int minute_start_ = 0;
};

}  // namespace

StampRunWalker::Shape::Shape(std::string_view head_bytes, const TimeOfDayLayout& time_layout)
    : head(head_bytes), layout(time_layout), walkable(head_bytes.size() == time_layout.time_at + 1 && !time_layout.ends_line) {
  if (!walkable) return;
  const std::size_t size = head.size() - 1 + layout.length;  // the head's last byte is the layout's first
  if (size > kLineStartBytes) return;
  std::memcpy(bytes, head.data(), head.size());
  for (std::size_t k = 1; k < layout.length; ++k) {
    const char c = layout.bytes[k];
    bytes[head.size() - 1 + k] = c;
    digits[head.size() - 1 + k] = c >= '0' && c <= '9' ? static_cast<char>(-1) : 0;
  }
  for (std::size_t block = 0; block < kLineStartBytes / 16; ++block) {
    const std::size_t left = size > 16 * block ? size - 16 * block : 0;
    wanted[block] = left >= 16 ? 0xffffU : (1U << left) - 1;
  }
#if defined(__SSE2__)
  one_look = true;
#endif
}

bool StampRunWalker::Shape::line_start_at(const char* p) const {
#if defined(__SSE2__)
  for (std::size_t block = 0; block < kLineStartBytes / 16 && wanted[block] != 0; ++block) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * block));
    const __m128i expected = _mm_load_si128(reinterpret_cast<const __m128i*>(bytes + 16 * block));
    const __m128i any_digit = _mm_load_si128(reinterpret_cast<const __m128i*>(digits + 16 * block));
    const __m128i offset = _mm_sub_epi8(v, _mm_set1_epi8('0'));
    const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(offset, _mm_set1_epi8(9)), offset);
    const __m128i ok = _mm_or_si128(_mm_and_si128(any_digit, digit),
                                    _mm_andnot_si128(any_digit, _mm_cmpeq_epi8(v, expected)));
    if ((static_cast<unsigned>(_mm_movemask_epi8(ok)) & wanted[block]) != wanted[block]) return false;
  }
  return true;
#else
  (void)p;
  return false;
#endif
}

// Near the text's end, or a template too long: the same checks one by one (and out of line:
// the walks' loops stay small).
bool StampRunWalker::Shape::starts_slowly(const char* p, std::size_t available) const {
  const std::size_t time_at = layout.time_at;
  return available >= time_at + layout.length && std::memcmp(p, head.data(), head.size()) == 0 &&
         TimeOfDayReader(layout).fits(p + time_at, available - time_at);
}

StampRunWalker::StampRunWalker(std::string_view head, const TimeOfDayLayout& layout) {
  shapes_.reserve(kMaxRoutes);
  shapes_.emplace_back(head, layout);
}

namespace {

bool same_layout(const TimeOfDayLayout& a, const TimeOfDayLayout& b) {
  return a.time_at == b.time_at && a.length == b.length && a.fraction_digits == b.fraction_digits &&
         a.ends_line == b.ends_line && a.keeps_fraction == b.keeps_fraction &&
         std::memcmp(a.bytes, b.bytes, sizeof(a.bytes)) == 0;
}

}  // namespace

bool StampRunWalker::has_route(std::string_view head, const TimeOfDayLayout& layout) const {
  for (const Shape& shape : shapes_)
    if (shape.head == head && same_layout(shape.layout, layout)) return true;
  return false;
}

bool StampRunWalker::add_route(std::string_view head, const TimeOfDayLayout& layout) {
  const TimeOfDayLayout& first = shapes_.front().layout;
  // A run's lines are read on the date of its routes' layouts: one date for all of them.
  if (shapes_.size() >= kMaxRoutes || !shapes_.front().walkable || layout.date.year != first.date.year ||
      layout.date.month != first.date.month || layout.date.day != first.date.day)
    return false;
  Shape shape(head, layout);
  if (!shape.walkable) return false;
  shapes_.push_back(std::move(shape));
  return true;
}

bool StampRunWalker::starts(const LineSink::StampRun& run) const {
  for (const Shape& shape : shapes_)
    if (stamp_run_starts(run, shape.head)) return true;
  return false;
}

const StampRunWalker::Shape* StampRunWalker::other_shape_at(const char* line, std::size_t available,
                                                             const Shape* tried) const {
  for (const Shape& shape : shapes_)
    if (&shape != tried && shape.starts_line(line, available)) return &shape;
  return nullptr;
}

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

StampRunWalk StampRunWalker::walk(const LineSink::StampRun& run, long long floor, bool check_steps_back) const {
  StampRunWalk walk;
  if (!shapes_.front().walkable || run.text.empty()) return walk;
  const char* text = run.text.data();
  const std::size_t size = run.text.size();
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  SecondsOfDay seconds_of_day;
  std::size_t pending = kNone;  // start of the last line read, whose end is not known yet
  std::size_t taken = kNone;    // start of the last line taken
  const Shape* pending_shape = nullptr;
  const Shape* taken_shape = nullptr;
  std::size_t previous_start = 0;
  // Where the line of a stamp ending at `end` (its last digit) starts on `shape`, or kNone.
  auto start_on = [&](const Shape& shape, std::size_t end) {
    const std::size_t time_at = shape.layout.time_at;
    if (end < time_at + 7) return kNone;
    const std::size_t start = end - 7 - time_at;
    // A line starts there (a second stamp of a line does not: no '\n' before its head).
    if (start != 0 && text[start - 1] != '\n') return kNone;
    return shape.starts_line(text + start, size - start) ? start : kNone;
  };
  std::size_t i = 0;
  for (; i < run.hit_count; ++i) {
    const TriggerScanner::Hit& h = run.hits[i];
    if (h.literal != TriggerScanner::kStamp || h.needle) break;
    const std::size_t end = h.end - run.shift;  // the last digit of `HH:MM:SS`
    if (end >= size) break;
    // The shape of the line before first: a writer's lines mostly share one.
    const Shape* shape = pending_shape != nullptr ? pending_shape : &shapes_.front();
    std::size_t start = start_on(*shape, end);
    for (std::size_t k = 0; start == kNone && k < shapes_.size(); ++k) {
      if (&shapes_[k] == shape) continue;
      start = start_on(shapes_[k], end);
      if (start != kNone) shape = &shapes_[k];
    }
    if (start == kNone) break;
    // No line before it is over the limit (the lines between are shorter than the gap).
    if (start - previous_start > run.max_line + 1) break;
    const int seconds = seconds_of_day.at(text + start + shape->layout.time_at);
    if (seconds < 0 || (check_steps_back && seconds < floor)) break;
    // The line before ends before this one starts, and held no other hit: it is taken.
    if (pending != kNone) {
      ++walk.lines;
      taken = pending;
      taken_shape = pending_shape;
    }
    walk.bytes = start;
    pending = start;
    pending_shape = shape;
    previous_start = start;
    floor = seconds - 60;
  }
  // The last line read: taken when it ends in the text, before the next hit.
  if (pending != kNone) {
    const std::size_t from = pending + pending_shape->layout.time_at + 8;
    const auto* nl = static_cast<const char*>(std::memchr(text + from, '\n', size - from));
    if (nl != nullptr) {
      const auto line_end = static_cast<std::size_t>(nl - text);
      const bool alone = i == run.hit_count || run.hits[i].end - run.shift > line_end;
      if (alone && line_end - pending <= run.max_line) {
        ++walk.lines;
        taken = pending;
        taken_shape = pending_shape;
        walk.bytes = line_end + 1;
      }
    }
  }
  if (taken != kNone)
    walk.last = TimeOfDayReader(taken_shape->layout).time_of_day(text + taken + taken_shape->layout.time_at);
  return walk;
}

StampRunWalk StampRunWalker::walk_lines(const LineSink::StampRun& run, long long floor, bool check_steps_back,
                                        AnchorLines* anchors) const {
  StampRunWalk walk;
  if (!shapes_.front().walkable || run.text.empty()) return walk;
  const char* text = run.text.data();
  const std::size_t size = run.text.size();
  // The next hit's line is taken only as an anchor line (one before the text: nothing is).
  if (run.hit_count > 0 && run.hits[0].end < run.shift) return walk;
  std::size_t next_hit = 0;
  auto stop_at = [&] {
    return next_hit < run.hit_count ? std::min<std::size_t>(run.hits[next_hit].end - run.shift, size) : size;
  };
  std::size_t stop = stop_at();
  SecondsOfDay seconds_of_day;
  std::size_t start = 0, last = 0;
  const Shape* shape = &shapes_.front();
  const Shape* last_shape = nullptr;
  while (start < stop) {
    const char* line = text + start;
    const std::size_t available = size - start;
    // The shape of the line before first (a function call for the others only).
    if (!shape->starts_line(line, available)) {
      shape = other_shape_at(line, available, shape);
      if (shape == nullptr) break;
    }
    const std::size_t time_at = shape->layout.time_at;
    const int seconds = seconds_of_day.at(line + time_at);
    if (seconds < 0 || (check_steps_back && seconds < floor)) break;
    // Its end, within the length limit (a longer line is cut, which the general path does). A
    // stamp's `HH:MM:SS` is whole before the line can end: the end is looked for after it.
    const std::size_t stamp_end = time_at + 8;
    const std::size_t look = std::min(available, run.max_line + 1);
    if (look <= stamp_end) break;
    const auto* nl = static_cast<const char*>(std::memchr(line + stamp_end, '\n', look - stamp_end));
    if (nl == nullptr) break;
    const auto end = static_cast<std::size_t>(nl - text);
    bool last_line = false;
    if (end >= stop) {
      // The line holds the next hit, and maybe more: an anchor line, if the caller takes it.
      if (anchors == nullptr) break;
      std::size_t after = next_hit;
      while (after < run.hit_count && run.hits[after].end - run.shift < end) ++after;
      if (after == next_hit) break;  // a hit on the '\n' itself: no literal ends so
      const AnchorLines::Verdict verdict =
          anchors->on_anchor_line(std::string_view(line, end - start), run.first_line + walk.lines,
                                  run.hits + next_hit, run.hits + after);
      if (verdict == AnchorLines::Verdict::Stop) break;
      last_line = verdict == AnchorLines::Verdict::TakeLast;
      walk.hits += after - next_hit;
      next_hit = after;
      stop = stop_at();
    }
    ++walk.lines;
    last = start;
    last_shape = shape;
    start = end + 1;
    walk.bytes = start;
    floor = seconds - 60;
    if (last_line) break;
  }
  if (walk.lines > 0)
    walk.last = TimeOfDayReader(last_shape->layout).time_of_day(text + last + last_shape->layout.time_at);
  return walk;
}

}  // namespace megatriage
