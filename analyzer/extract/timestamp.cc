#include "extract/timestamp.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "extract/escaped_text.h"

namespace megatriage {
namespace {

using Sv = std::string_view;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Level letters of c10 (`I W E F`, `V` verbose) and torch._logging's glog-like formatter, which
// prints the first letter of the Python level name (`D`EBUG, `C`RITICAL).
bool is_level(char c) {
  return c == 'I' || c == 'W' || c == 'E' || c == 'F' || c == 'V' || c == 'D' || c == 'C';
}

bool starts_with(Sv s, std::size_t i, Sv lit) { return i <= s.size() && s.substr(i, lit.size()) == lit; }

// Exactly `n` digits at s[i]; advances `i` on success.
bool fixed_digits(Sv s, std::size_t& i, int n, int& out) {
  if (i + static_cast<std::size_t>(n) > s.size()) return false;
  int v = 0;
  for (int k = 0; k < n; ++k) {
    char c = s[i + static_cast<std::size_t>(k)];
    if (!is_digit(c)) return false;
    v = v * 10 + (c - '0');
  }
  i += static_cast<std::size_t>(n);
  out = v;
  return true;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2) {
    // year == 0 (not printed): allow Feb 29, the caller infers the year later.
    bool leap = year == 0 || (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0));
    return leap ? 29 : 28;
  }
  return kDays[month - 1];
}

bool date_ok(const CivilTime& t) {
  return t.month >= 1 && t.month <= 12 && t.day >= 1 && t.day <= days_in_month(t.year, t.month);
}

// Leap seconds print as :60.
bool time_ok(const CivilTime& t) { return t.hour < 24 && t.minute < 60 && t.second <= 60; }

// Two digits at p (unchecked bounds), or -1.
int two_digits(const char* p) {
  const auto a = static_cast<unsigned>(p[0] - '0'), b = static_cast<unsigned>(p[1] - '0');
  return a < 10 && b < 10 ? static_cast<int>(a * 10 + b) : -1;
}

// `HH:MM:SS` at s[i]. Every stamped line passes here, so the fixed layout is tested in one go
// rather than digit by digit with bounds checks.
bool read_hms(Sv s, std::size_t& i, CivilTime& t) {
  if (i + 8 > s.size()) return false;
  const char* p = s.data() + i;
  const int h = two_digits(p), m = two_digits(p + 3), sec = two_digits(p + 6);
  if (h < 0 || m < 0 || sec < 0 || p[2] != ':' || p[5] != ':') return false;
  t.hour = h;
  t.minute = m;
  t.second = sec;
  i += 8;
  return true;
}

// Optional `.ffffff` / `,mmm` (1 to 9 digits; beyond microseconds is dropped). Returns micros.
int read_fraction(Sv s, std::size_t& i, bool allow_comma) {
  if (i >= s.size() || !(s[i] == '.' || (allow_comma && s[i] == ','))) return 0;
  std::size_t j = i + 1;
  int micros = 0, n = 0;
  while (j < s.size() && is_digit(s[j]) && n < 9) {
    if (n < 6) micros = micros * 10 + (s[j] - '0');
    ++n;
    ++j;
  }
  if (n == 0) return 0;  // a lone `.` is punctuation, leave it
  for (int k = n; k < 6; ++k) micros *= 10;
  i = j;
  return micros;
}

// The `HH:MM:SS[.frac|,ms]` at s[j] after a date (`year`, `month`, `day`), not followed by a
// digit: on success `t` is the stamp and `i` is past it.
bool read_time_after_date(Sv s, std::size_t j, int year, int month, int day, std::size_t& i, CivilTime& t) {
  CivilTime r;
  r.year = year;
  r.month = month;
  r.day = day;
  if (!read_hms(s, j, r)) return false;
  r.micros = read_fraction(s, j, /*allow_comma=*/true);
  if (j < s.size() && is_digit(s[j])) return false;
  if (r.year == 0 || !date_ok(r) || !time_ok(r)) return false;
  i = j;
  t = r;
  return true;
}

// `YYYY-MM-DD<sep>HH:MM:SS[.frac|,ms]` with sep one of ' ', 'T' (ISO, Slurm), '_' (torchelastic).
// The character after it must not be a digit (so `12:00:001` is not a time).
bool read_datetime(Sv s, std::size_t& i, CivilTime& t) {
  if (i + 19 > s.size()) return false;
  const char* p = s.data() + i;
  const int y1 = two_digits(p), y2 = two_digits(p + 2), month = two_digits(p + 5), day = two_digits(p + 8);
  if (y1 < 0 || y2 < 0 || month < 0 || day < 0 || p[4] != '-' || p[7] != '-') return false;
  if (p[10] != ' ' && p[10] != 'T' && p[10] != '_') return false;
  return read_time_after_date(s, i + 11, y1 * 100 + y2, month, day, i, t);
}

// `MM/DD/YYYY HH:MM:SS[.frac|,ms]`: Python logging with `datefmt="%m/%d/%Y %H:%M:%S"`, as the
// Hugging Face examples (transformers, accelerate) configure it. Month first only: a day-first
// date (`29/11/2026`) is not read, rather than read as another day.
bool read_us_datetime(Sv s, std::size_t& i, CivilTime& t) {
  if (i + 19 > s.size()) return false;
  const char* p = s.data() + i;
  const int month = two_digits(p), day = two_digits(p + 3), y1 = two_digits(p + 6), y2 = two_digits(p + 8);
  if (month < 0 || day < 0 || y1 < 0 || y2 < 0 || p[2] != '/' || p[5] != '/' || p[10] != ' ') return false;
  return read_time_after_date(s, i + 11, y1 * 100 + y2, month, day, i, t);
}

// c10 `[W728 15:01:59.561275187 socket.cpp:1028]`: month*100+day unpadded (3 or 4 digits), no
// year. The 9-digit fraction comes from the monotonic clock, so it is dropped (micros = 0).
// Requires: s[i] == '[' and s[i+1] is a level letter.
std::optional<CivilTime> read_c10(Sv s, std::size_t i) {
  std::size_t j = i + 2;
  std::size_t start = j;
  int mmdd = 0;
  while (j < s.size() && is_digit(s[j]) && j - start < 4) mmdd = mmdd * 10 + (s[j++] - '0');
  std::size_t n = j - start;
  if (n < 3 || j >= s.size() || s[j] != ' ') return std::nullopt;
  ++j;
  CivilTime t;
  t.month = mmdd / 100;
  t.day = mmdd % 100;
  if (!read_hms(s, j, t)) return std::nullopt;
  read_fraction(s, j, /*allow_comma=*/false);
  if (j >= s.size() || s[j] != ' ') return std::nullopt;
  if (!date_ok(t) || !time_ok(t)) return std::nullopt;
  return t;
}

// glog-like torch Python logs `E0925 17:40:00.218000 16555 path:869] msg`: MMDD zero-padded,
// 6-digit micros that are real (ms*1000), no year. Requires: s[i] is a level letter.
std::optional<CivilTime> read_glog(Sv s, std::size_t i) {
  std::size_t j = i + 1;
  CivilTime t;
  if (!fixed_digits(s, j, 2, t.month) || !fixed_digits(s, j, 2, t.day)) return std::nullopt;
  if (j >= s.size() || s[j] != ' ') return std::nullopt;
  ++j;
  if (!read_hms(s, j, t)) return std::nullopt;
  t.micros = read_fraction(s, j, /*allow_comma=*/false);
  if (j >= s.size() || s[j] != ' ') return std::nullopt;
  if (!date_ok(t) || !time_ok(t)) return std::nullopt;
  return t;
}

// `[YYYY-MM-DD HH:MM:SS(.ffffff|,mmm)]`: Megatron iteration lines, DeepSpeed, torchrun 2.0-era,
// early torch._logging, NCCL >= 2.26 WARN. Requires: s[i] == '['.
std::optional<CivilTime> read_bracketed(Sv s, std::size_t i) {
  std::size_t j = i + 1;
  CivilTime t;
  if (!read_datetime(s, j, t) || j >= s.size() || s[j] != ']') return std::nullopt;
  return t;
}

// Megatron print_datetime `[<what>] datetime: YYYY-MM-DD HH:MM:SS(.ffffff) ` ends the line, so
// the anchor is looked for only in the last few bytes: O(1) per `[` line whatever its length.
std::optional<CivilTime> read_datetime_suffix(Sv s) {
  constexpr Sv kAnchor = "datetime: ";
  constexpr std::size_t kWindow = 48;  // anchor + date + time + fraction + trailing spaces
  std::size_t end = s.size();
  if (end < kAnchor.size() + 19) return std::nullopt;
  std::size_t from = end > kWindow ? end - kWindow : 0;
  std::size_t at = s.substr(from).rfind(kAnchor);
  if (at == Sv::npos) return std::nullopt;
  std::size_t j = from + at + kAnchor.size();
  CivilTime t;
  if (!read_datetime(s, j, t)) return std::nullopt;
  return t;
}

// `*** JOB 1234 ON node01 CANCELLED AT 2024-05-01T12:00:00 DUE TO TIME LIMIT ***` and
// `... UNCORRECTABLE MEMORY ERROR AT ...`, after `slurmstepd[-node]: error: `.
std::optional<CivilTime> read_slurmstepd(Sv s, std::size_t i) {
  std::size_t stars = s.find("*** ", i);
  if (stars == Sv::npos) return std::nullopt;
  for (Sv anchor : {Sv("CANCELLED AT "), Sv("MEMORY ERROR AT ")}) {
    std::size_t at = s.find(anchor, stars);
    if (at == Sv::npos) continue;
    std::size_t j = at + anchor.size();
    CivilTime t;
    if (read_datetime(s, j, t)) return t;
  }
  return std::nullopt;
}

// torchelastic ChildFailedError `  time      : 2024-05-01_12:00:00`. Requires: s[i] == 't'.
std::optional<CivilTime> read_child_failed(Sv s, std::size_t i) {
  if (!starts_with(s, i, "time ")) return std::nullopt;
  std::size_t j = i + 4;
  while (j < s.size() && s[j] == ' ') ++j;
  if (!starts_with(s, j, ": ")) return std::nullopt;
  j += 2;
  CivilTime t;
  if (!read_datetime(s, j, t)) return std::nullopt;
  return t;
}

constexpr std::int64_t kUsPerSecond = 1'000'000;
constexpr std::int64_t kSecondsPerDay = 86'400;

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, day 0 = 1970-01-01).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

// A logging format that puts the level first (`%(levelname)s %(asctime)s ...`, a padded
// `%(levelname)-8s | `, `[%(levelname)s]%(asctime)s`): the level word, maybe in brackets, and
// the separators after it. Returns where the stamp would start, or npos when `s` at `i` starts otherwise.
std::size_t after_level_word(Sv s, std::size_t i) {
  static constexpr Sv kLevels[] = {"INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL", "FATAL", "TRACE", "NOTICE"};
  const bool bracketed = i < s.size() && s[i] == '[';
  const std::size_t word = i + (bracketed ? 1 : 0);
  std::size_t j = Sv::npos;
  for (Sv level : kLevels) {
    if (starts_with(s, word, level)) {
      j = word + level.size();
      break;
    }
  }
  if (j == Sv::npos) return Sv::npos;
  if (bracketed) {
    if (j >= s.size() || s[j] != ']') return Sv::npos;
    ++j;
  }
  // Then a separator (after a bracket, maybe none): spaces (a padded level), ':', '-' or '|', a
  // few bytes at most.
  const std::size_t stop = std::min(s.size(), j + 8);
  const std::size_t from = j;
  while (j < stop && (s[j] == ' ' || s[j] == ':' || s[j] == '-' || s[j] == '|')) ++j;
  return j > from || bracketed ? j : Sv::npos;
}

// What parse_shaped says of the shape it read.
struct StampShape {
  // It reads the line from its start up to the byte after its time of day (and fraction) and no
  // further: its `HH` then decides nothing else.
  bool prefix_shaped = false;
  bool keeps_fraction = true;  // false for c10: read_c10 drops the monotonic-clock fraction
};

// `LEVEL 2026-11-29 10:00:00,123`: a date and time after a level word (after_level_word); or
// vLLM's year-less `INFO 11-29 10:00:00 [file.py:12]` (`%m-%d %H:%M:%S`; the year is inferred,
// as for c10).
std::optional<CivilTime> read_after_level(Sv body, std::size_t i, StampShape& shape) {
  std::size_t j = after_level_word(body, i);
  if (j == Sv::npos || j + 1 >= body.size() || !is_digit(body[j]) || !is_digit(body[j + 1])) return std::nullopt;
  CivilTime t;
  if (j + 2 < body.size() && body[j + 2] == '-' && (j + 5 >= body.size() || body[j + 5] == ' ')) {
    if (j + 14 > body.size()) return std::nullopt;
    const char* p = body.data() + j;
    t.month = two_digits(p);
    t.day = two_digits(p + 3);
    std::size_t k = j + 6;
    if (t.month < 0 || t.day < 0 || !read_hms(body, k, t)) return std::nullopt;
    t.micros = read_fraction(body, k, /*allow_comma=*/true);
    if ((k < body.size() && is_digit(body[k])) || !date_ok(t) || !time_ok(t)) return std::nullopt;
  } else if (!read_datetime(body, j, t)) {
    return std::nullopt;
  }
  shape.prefix_shaped = true;
  return t;
}

// The month names of a syslog stamp, as strftime's `%b` prints them in the C locale.
constexpr Sv kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// The month whose name is at s[i], 1-12, or 0.
int month_name_at(Sv s, std::size_t i) {
  for (int m = 0; m < 12; ++m)
    if (starts_with(s, i, kMonths[m])) return m + 1;
  return 0;
}

// Whether `c0`, `c1` may open a month's name (its first two letters).
bool may_open_month(char c0, char c1) {
  for (Sv month : kMonths)
    if (month[0] == c0 && month[1] == c1) return true;
  return false;
}

// The syslog stamp (RFC 3164, and journalctl's default `short` output): `Nov 29 10:01:32`, the
// day padded with a blank below 10 (`Nov  9`), maybe with a fraction (journalctl's
// `short-precise`: `Nov 29 10:01:32.123456`). It has no year: inferred, as for c10. What
// follows is the host and the program (`node012 python3[2301234]: `), read as a prefix.
std::optional<CivilTime> read_syslog(Sv s, std::size_t i) {
  CivilTime t;
  t.month = month_name_at(s, i);
  std::size_t j = i + 3;
  if (t.month == 0 || j + 3 > s.size() || s[j] != ' ') return std::nullopt;
  ++j;
  if (s[j] == ' ') ++j;  // the padding of a one-digit day
  if (!is_digit(s[j])) return std::nullopt;
  t.day = s[j++] - '0';
  if (j < s.size() && is_digit(s[j])) t.day = t.day * 10 + (s[j++] - '0');
  if (j >= s.size() || s[j] != ' ') return std::nullopt;
  ++j;
  if (!read_hms(s, j, t)) return std::nullopt;
  t.micros = read_fraction(s, j, /*allow_comma=*/false);
  if ((j < s.size() && is_digit(s[j])) || !date_ok(t) || !time_ok(t)) return std::nullopt;
  return t;
}

// A JSON record's stamp (structured logging: python-json-logger, structlog, loguru's
// `serialize`; `{"time": "2026-11-29T10:01:32.594Z", "level": "INFO", ...}`; docker's json-file
// `{"log": "...", "stream": "stderr", "time": "..."}`): the first string value among the record's
// first four members that is a stamp parse_timestamp reads. Requires: s[i] == '{'.
std::optional<CivilTime> read_json_record(Sv s, std::size_t i) {
  std::optional<CivilTime> t;
  find_json_member(s.substr(i), 4, [&](Sv, std::size_t at) {
    const std::size_t value = i + at + 1;
    if (s[i + at] == '"' && value < s.size() && is_digit(s[value])) t = parse_timestamp(s.substr(value));
    return t.has_value();
  });
  return t;
}

// Whether a shape may start with the bytes `c0`, `c1` (parse_shaped's cheap gate): false, and
// parse_shaped finds no stamp whatever follows them.
bool may_open_stamp(char c0, char c1) {
  switch (c0) {
    case '[':
      return true;
    case '{':
      return c1 == '"';
    case 't':
      return c1 == 'i';
    case 's':
      return c1 == 'l' || c1 == 'r';
    case '*':
      return c1 == '*';
    default:
      break;
  }
  return (is_digit(c0) && is_digit(c1)) || (is_level(c0) && is_digit(c1)) ||
         (c0 >= 'A' && c0 <= 'Z' && c1 >= 'A' && c1 <= 'Z') || may_open_month(c0, c1);
}

// parse_timestamp, also saying which kind of shape it read.
std::optional<CivilTime> parse_shaped(std::string_view body, StampShape& shape) {
  shape = StampShape{};
  // Cheap gate: every shape is decided by the first non-space byte and the one after it, so an
  // ordinary line (traceback frame, NCCL INFO, Megatron print) costs the space skip and at most
  // two byte compares. The anchored shapes have their own first bytes: ChildFailedError lines
  // start with spaces + `time`, slurmstepd lines with `slurmstepd`/`srun:`/`*** `, and Megatron
  // print_datetime lines with `[` (their anchor is checked at the end of the line only).
  std::size_t i = 0;
  while (i < body.size() && body[i] == ' ') ++i;
  if (i + 1 >= body.size()) return std::nullopt;
  const char c0 = body[i];
  const char c1 = body[i + 1];
  if (!may_open_stamp(c0, c1)) return std::nullopt;
  switch (c0) {
    case '[':
      if (is_digit(c1)) {
        shape.prefix_shaped = true;
        return read_bracketed(body, i);
      }
      if (is_level(c1) && i + 2 < body.size() && is_digit(body[i + 2])) {
        shape.prefix_shaped = true;
        shape.keeps_fraction = false;
        return read_c10(body, i);
      }
      if (c1 == 'N' && starts_with(body, i, "[NeMo ")) {
        // `[NeMo W 2024-05-01 12:00:00 nemo_logging:364]`
        std::size_t j = i + 6;
        if (j + 1 < body.size() && is_level(body[j]) && body[j + 1] == ' ') {
          j += 2;
          CivilTime t;
          shape.prefix_shaped = true;
          if (read_datetime(body, j, t)) return t;
        }
        return std::nullopt;
      }
      if (c1 >= 'A' && c1 <= 'Z') {
        if (std::optional<CivilTime> t = read_after_level(body, i, shape)) return t;
      }
      return read_datetime_suffix(body);
    case '{':
      // The record's members before its stamp decide, and the stamp ends its reading.
      shape.prefix_shaped = true;
      return read_json_record(body, i);
    case 't':
      if (c1 == 'i') return read_child_failed(body, i);
      return std::nullopt;
    case 's':
      if (c1 == 'l' || c1 == 'r') {
        if (starts_with(body, i, "slurmstepd") || starts_with(body, i, "srun:")) {
          return read_slurmstepd(body, i);
        }
      }
      return std::nullopt;
    case '*':
      if (c1 == '*') return read_slurmstepd(body, i);
      return std::nullopt;
    default:
      break;
  }
  if (is_digit(c0) && is_digit(c1)) {
    // Python logging `2024-05-01 12:00:00,123`, ISO / sacct `2024-05-01T12:00:00`, and the
    // Hugging Face examples' `11/29/2026 10:00:00`.
    std::size_t j = i;
    CivilTime t;
    shape.prefix_shaped = true;
    if (i + 2 < body.size() && body[i + 2] == '/' ? read_us_datetime(body, j, t) : read_datetime(body, j, t)) return t;
    return std::nullopt;
  }
  if (is_level(c0) && is_digit(c1)) {
    shape.prefix_shaped = true;
    return read_glog(body, i);
  }
  if (c0 >= 'A' && c0 <= 'Z' && c1 >= 'A' && c1 <= 'Z') return read_after_level(body, i, shape);
  if (may_open_month(c0, c1)) {
    shape.prefix_shaped = true;
    return read_syslog(body, i);
  }
  return std::nullopt;
}

}  // namespace

std::optional<CivilTime> parse_timestamp(std::string_view body) {
  StampShape shape;
  return parse_shaped(body, shape);
}

std::size_t stamp_gate_end(std::string_view body) {
  std::size_t i = 0;
  while (i < body.size() && body[i] == ' ') ++i;
  if (i + 1 >= body.size()) return std::string_view::npos;
  if (!may_open_stamp(body[i], body[i + 1])) return i + 2;
  // `[` and a digit open only `[YYYY-MM-DD<sep>...]` (read_bracketed): its date's 11 bytes rule
  // it out when they cannot be one, as in MPI's `[1,3]<stdout>:`.
  if (body[i] == '[' && is_digit(body[i + 1]) && i + 12 <= body.size()) {
    const char* p = body.data() + i + 1;
    const bool date = two_digits(p) >= 0 && two_digits(p + 2) >= 0 && p[4] == '-' && two_digits(p + 5) >= 0 &&
                      p[7] == '-' && two_digits(p + 8) >= 0 && (p[10] == ' ' || p[10] == 'T' || p[10] == '_');
    if (!date) return i + 12;
  }
  // A capital and a small letter open only a month's name and its blank (read_syslog): any
  // other word is ruled out by its first four bytes (`File`, `Setting `, `None`).
  if (may_open_month(body[i], body[i + 1]) && i + 4 <= body.size() &&
      (month_name_at(body, i) == 0 || body[i + 3] != ' '))
    return i + 4;
  return std::string_view::npos;
}

std::optional<TimeOfDayLayout> learn_time_layout(std::string_view line, std::size_t from, std::size_t time_at) {
  StampShape shape;
  std::optional<CivilTime> t = parse_shaped(line.substr(from), shape);
  if (!t || !shape.prefix_shaped || time_at < from || time_at + 8 > line.size()) return std::nullopt;
  const char* p = line.data() + time_at;
  // The stamp's own time must be the one at time_at (not a time of day later in the line).
  if (two_digits(p) != t->hour || two_digits(p + 3) != t->minute || two_digits(p + 6) != t->second ||
      p[2] != ':' || p[5] != ':')
    return std::nullopt;
  TimeOfDayLayout layout;
  layout.date = *t;
  layout.time_at = static_cast<std::uint32_t>(time_at);
  layout.keeps_fraction = shape.keeps_fraction;
  // What the shapes read after `SS`: a fraction of at most 9 digits, then one byte they test.
  std::size_t n = 8;
  if (time_at + n + 1 < line.size() && (p[n] == '.' || p[n] == ',') && is_digit(p[n + 1])) {
    ++n;
    while (n < 18 && time_at + n < line.size() && is_digit(p[n])) ++n;
    layout.fraction_digits = static_cast<std::uint8_t>(n - 9);
  } else if (time_at + n < line.size() && (p[n] == '.' || p[n] == ',')) {
    // A separator without a fraction: whether a digit follows it decides what the shapes read,
    // so the byte after it (or the line's end) is part of the layout too.
    ++n;
  }
  layout.ends_line = time_at + n >= line.size();
  if (!layout.ends_line) ++n;  // the byte the shape tests after the time
  layout.length = static_cast<std::uint8_t>(n);
  std::memcpy(layout.bytes, p, n);
  return layout;
}

bool read_time_of_day(const TimeOfDayLayout& layout, const char* p, std::size_t available, TimeOfDay& out) {
  const TimeOfDayReader reader(layout);
  int seconds = 0;
  if (!reader.seconds_at(p, available, seconds)) return false;
  out = reader.time_of_day(p);
  return true;
}

std::optional<CivilTime> read_time_with_layout(const TimeOfDayLayout& layout, std::string_view line) {
  const std::size_t at = layout.time_at, n = layout.length;
  if (layout.ends_line ? line.size() != at + n : line.size() < at + n) return std::nullopt;
  TimeOfDay time;
  if (!read_time_of_day(layout, line.data() + at, line.size() - at, time)) return std::nullopt;
  CivilTime t = layout.date;
  t.hour = time.hour;
  t.minute = time.minute;
  t.second = time.second;
  t.micros = time.micros;
  return t;
}

std::optional<std::int64_t> civil_to_us(const CivilTime& t) {
  if (t.year == 0 || !date_ok(t) || !time_ok(t) || t.micros < 0 || t.micros >= kUsPerSecond) {
    return std::nullopt;
  }
  const std::int64_t days =
      days_from_civil(t.year, static_cast<unsigned>(t.month), static_cast<unsigned>(t.day));
  const std::int64_t seconds = days * kSecondsPerDay + t.hour * 3600 + t.minute * 60 + t.second;
  return seconds * kUsPerSecond + t.micros;
}

std::string format_iso(std::int64_t us) {
  // Floor division so times before 1970 still print a valid date.
  std::int64_t seconds = us / kUsPerSecond;
  std::int64_t micros = us % kUsPerSecond;
  if (micros < 0) {
    micros += kUsPerSecond;
    --seconds;
  }
  std::int64_t days = seconds / kSecondsPerDay;
  std::int64_t sod = seconds % kSecondsPerDay;
  if (sod < 0) {
    sod += kSecondsPerDay;
    --days;
  }
  std::int64_t y = 0;
  unsigned m = 0, d = 0;
  civil_from_days(days, y, m, d);
  char buf[48];
  int n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d", static_cast<long long>(y), m,
                        d, static_cast<int>(sod / 3600), static_cast<int>(sod / 60 % 60),
                        static_cast<int>(sod % 60));
  std::string out(buf, static_cast<std::size_t>(n));
  if (micros != 0) {
    n = std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(micros));
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::string to_debug_string(const CivilTime& t) {
  char buf[64];
  int n;
  if (t.year == 0) {
    n = std::snprintf(buf, sizeof buf, "?\?\?\?-%02d-%02d %02d:%02d:%02d", t.month, t.day, t.hour,
                      t.minute, t.second);
  } else {
    n = std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d", t.year, t.month, t.day,
                      t.hour, t.minute, t.second);
  }
  std::string out(buf, static_cast<std::size_t>(n));
  if (t.micros != 0) {
    n = std::snprintf(buf, sizeof buf, ".%06d", t.micros);
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace megatriage
