// Attribute stage, part 2: recognise the timestamp shapes of training logs (ISO 8601, Python
// logging, c10 `[E728 15:01:59.561275187 file:line]` with no year and an unpadded month, glog
// `E0925 17:40:00.218000 pid path:line]`, Megatron `[YYYY-MM-DD HH:MM:SS(.ffffff)]`,
// torchelastic `time : YYYY-MM-DD_HH:MM:SS`, slurmstepd `CANCELLED AT`, NeMo, DeepSpeed,
// NCCL WARN `[%F %T]`, the Hugging Face examples' `11/29/2026 10:00:00`, and a date and time
// after a level word: `INFO 2026-11-29 10:00:00,123`, `[WARNING] 2026-...`). Returns broken-down time; year inference happens in the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/types.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace megatriage {

/// Finds a timestamp at the start of `body` (after leading spaces and a level word), or at a
/// known anchor inside it (`time      : `, `CANCELLED AT `, `datetime: `). Cheap rejection first: most lines return
/// nullopt after looking at two bytes. c10 fractions are monotonic-clock noise: micros = 0.
std::optional<CivilTime> parse_timestamp(std::string_view body);

/// Where the bytes end that rule out a stamp at the start of `body`: parse_timestamp() finds
/// none in any text that begins with body's first that many bytes. npos: they do not rule it
/// out (a stamp may start there, or the body is too short to tell).
std::size_t stamp_gate_end(std::string_view body);

/// How a line's stamp continues from its time of day: lines of one writer that share every byte
/// before the time (StampRoutes keys routes by those bytes) and have this layout after it parse
/// to the template's date with their own time, so the parse needs only their digits. Learnt for
/// the shapes that read nothing past the byte after the time (and fraction).
struct TimeOfDayLayout {
  CivilTime date;                  // the template's stamp: year, month and day are kept
  std::uint32_t time_at = 0;       // offset of `HH` in the line
  std::uint8_t length = 0;         // bytes from time_at the shape read, with the byte it tested after
  std::uint8_t fraction_digits = 0;
  bool ends_line = false;          // the template line ended inside them
  bool keeps_fraction = true;      // false for c10 (parse_timestamp drops its fraction)
  char bytes[19] = {};             // the template's bytes there: digits where any digit may be
};

/// The layout of `line`'s stamp, read by parse_timestamp at `from`, whose time of day starts at
/// `time_at`; nullopt when no stamp is there, its shape reads further, or its time is elsewhere.
std::optional<TimeOfDayLayout> learn_time_layout(std::string_view line, std::size_t from, std::size_t time_at);

/// The stamp of a line whose bytes before `layout.time_at` equal the template line's: what
/// parse_timestamp would return, or nullopt when the bytes do not fit the layout (then parse).
std::optional<CivilTime> read_time_with_layout(const TimeOfDayLayout& layout, std::string_view line);

/// A time of day read on a layout: the fields read_time_with_layout() puts into the template's
/// date.
struct TimeOfDay {
  int hour = 0, minute = 0, second = 0;
  int micros = 0;
  int seconds() const { return (hour * 60 + minute) * 60 + second; }
};

/// The time of day of the `available` bytes at `p`, which are a line's bytes from
/// `layout.time_at` on: read_time_with_layout()'s reading without a line or a date. False: they
/// do not fit the layout.
bool read_time_of_day(const TimeOfDayLayout& layout, const char* p, std::size_t available, TimeOfDay& out);

/// read_time_of_day() for many lines of one layout (a run of one writer's lines): what it works
/// out from the layout alone is worked out once, and a line's fraction is read only when asked.
class TimeOfDayReader {
 public:
  explicit TimeOfDayReader(const TimeOfDayLayout& layout) : layout_(layout) {
#if defined(__SSE2__)
    template_ = _mm_loadu_si128(reinterpret_cast<const __m128i*>(layout.bytes));
    const __m128i offset = _mm_sub_epi8(template_, _mm_set1_epi8('0'));
    template_digits_ = _mm_cmpeq_epi8(_mm_min_epu8(offset, _mm_set1_epi8(9)), offset);
    wanted_ = layout.length >= 16 ? 0xffffU : (1U << layout.length) - 1;
#endif
  }

  /// Whether the `available` bytes at `p` fit the layout with a time of day in range; its
  /// seconds since midnight in `seconds`.
  bool seconds_at(const char* p, std::size_t available, int& seconds) const {
    if (available < layout_.length || !fits(p, available)) return false;
    // The template has digits at HH, MM and SS, so these are digits.
    const int hour = two(p), minute = two(p + 3), second = two(p + 6);
    if (hour >= 24 || minute >= 60 || second > 60) return false;  // a leap second prints :60
    seconds = (hour * 60 + minute) * 60 + second;
    return true;
  }

  /// The time of day at `p`, which seconds_at() accepted.
  TimeOfDay time_of_day(const char* p) const {
    TimeOfDay t;
    t.hour = two(p);
    t.minute = two(p + 3);
    t.second = two(p + 6);
    if (layout_.keeps_fraction) {
      for (std::size_t k = 0; k < layout_.fraction_digits && k < 6; ++k) t.micros = t.micros * 10 + (p[9 + k] - '0');
      for (std::size_t k = layout_.fraction_digits; k < 6; ++k) t.micros *= 10;
    }
    return t;
  }

  /// The `layout.length` bytes at p (`available` >= that) have the template's layout: digits
  /// where it has digits, its bytes elsewhere. 16 bytes at once where the line has them.
  bool fits(const char* p, std::size_t available) const {
    std::size_t k = 0;
#if defined(__SSE2__)
    if (available >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i offset = _mm_sub_epi8(v, _mm_set1_epi8('0'));
      const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(offset, _mm_set1_epi8(9)), offset);
      const __m128i ok = _mm_or_si128(_mm_and_si128(template_digits_, digit),
                                      _mm_andnot_si128(template_digits_, _mm_cmpeq_epi8(v, template_)));
      if ((static_cast<unsigned>(_mm_movemask_epi8(ok)) & wanted_) != wanted_) return false;
      k = 16;
    }
#endif
    for (; k < layout_.length; ++k) {
      const bool digit_wanted = layout_.bytes[k] >= '0' && layout_.bytes[k] <= '9';
      if (digit_wanted ? !(p[k] >= '0' && p[k] <= '9') : p[k] != layout_.bytes[k]) return false;
    }
    return true;
  }

 private:
  static int two(const char* p) { return (p[0] - '0') * 10 + (p[1] - '0'); }  // two digits
  const TimeOfDayLayout& layout_;
#if defined(__SSE2__)
  __m128i template_, template_digits_;
  unsigned wanted_;
#endif
};

/// Microseconds since the epoch, interpreting `t` as UTC. Requires: t.year != 0 and fields in
/// range (returns nullopt otherwise).
std::optional<std::int64_t> civil_to_us(const CivilTime& t);

/// ISO 8601 `YYYY-MM-DDTHH:MM:SS` (plus `.ffffff` when micros != 0).
std::string format_iso(std::int64_t us);

/// Canonical form for table tests: `2024-05-01 12:00:00.000123` or `????-07-28 15:01:59`
/// (`????` when year == 0; `.ffffff` only when micros != 0).
std::string to_debug_string(const CivilTime& t);

}  // namespace megatriage
