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

/// Microseconds since the epoch, interpreting `t` as UTC. Requires: t.year != 0 and fields in
/// range (returns nullopt otherwise).
std::optional<std::int64_t> civil_to_us(const CivilTime& t);

/// ISO 8601 `YYYY-MM-DDTHH:MM:SS` (plus `.ffffff` when micros != 0).
std::string format_iso(std::int64_t us);

/// Canonical form for table tests: `2024-05-01 12:00:00.000123` or `????-07-28 15:01:59`
/// (`????` when year == 0; `.ffffff` only when micros != 0).
std::string to_debug_string(const CivilTime& t);

}  // namespace megatriage
