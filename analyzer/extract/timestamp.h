// Attribute stage, part 2: recognise the timestamp shapes of training logs (ISO 8601, Python
// logging, c10 `[E728 15:01:59.561275187 file:line]` with no year and an unpadded month, glog
// `E0925 17:40:00.218000 pid path:line]`, Megatron `[YYYY-MM-DD HH:MM:SS(.ffffff)]`,
// torchelastic `time : YYYY-MM-DD_HH:MM:SS`, slurmstepd `CANCELLED AT`, NeMo, DeepSpeed,
// NCCL WARN `[%F %T]`). Returns broken-down time; year inference happens in the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/types.h"

namespace megatriage {

/// Finds a timestamp at the start of `body` (after leading spaces), or at a known anchor inside
/// it (`time      : `, `CANCELLED AT `, `datetime: `). Cheap rejection first: most lines return
/// nullopt after looking at two bytes. c10 fractions are monotonic-clock noise: micros = 0.
std::optional<CivilTime> parse_timestamp(std::string_view body);

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
/// `layout.time_at` on, for a layout that does not end its line: read_time_with_layout()'s
/// reading without a line or a date. False: they do not fit the layout.
bool read_time_of_day(const TimeOfDayLayout& layout, const char* p, std::size_t available, TimeOfDay& out);

/// Microseconds since the epoch, interpreting `t` as UTC. Requires: t.year != 0 and fields in
/// range (returns nullopt otherwise).
std::optional<std::int64_t> civil_to_us(const CivilTime& t);

/// ISO 8601 `YYYY-MM-DDTHH:MM:SS` (plus `.ffffff` when micros != 0).
std::string format_iso(std::int64_t us);

/// Canonical form for table tests: `2024-05-01 12:00:00.000123` or `????-07-28 15:01:59`
/// (`????` when year == 0; `.ffffff` only when micros != 0).
std::string to_debug_string(const CivilTime& t);

}  // namespace megatriage
