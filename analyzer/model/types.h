// Plain data shared by every stage: file ids, origins, timestamps, attribution.
// Stage-specific types live with their stage; nothing here allocates on the hot path.
#pragma once

#include <cstdint>
#include <string>

namespace megatriage {

/// Index of a SourceFile in discovery order (sorted relative path); stable across runs.
using FileId = std::uint32_t;

/// Where something was seen: file, 1-based line ('\n'-separated), byte offset of the line start
/// in the decompressed text.
struct Origin {
  FileId file = 0;
  std::uint64_t line = 0;
  std::uint64_t offset = 0;
};

/// How we know an event's time.
enum class TimeSource : std::uint8_t {
  None,       // no timestamp anywhere before it in its stream
  Explicit,   // printed on the line itself
  Inherited,  // taken from the stream's last stamped line
};

/// Broken-down local time as printed in a log (logs carry no zone). year == 0: not printed.
struct CivilTime {
  int year = 0;
  int month = 0;  // 1..12
  int day = 0;    // 1..31
  int hour = 0, minute = 0, second = 0;
  int micros = 0;
};

/// A point in time as microseconds since the epoch, treating the log's local time as UTC
/// (we never know the zone; all hosts of one job are assumed to share one).
struct Timestamp {
  std::int64_t us = 0;
  TimeSource source = TimeSource::None;
  bool year_inferred = false;  // the printed stamp had no year (c10, glog)

  bool known() const { return source != TimeSource::None; }
};

/// Who wrote a line. -1 / empty means unknown.
struct Attribution {
  int rank = -1;        // global training rank ([rankN]:, torchrun table, file name)
  int local_rank = -1;  // torchrun local rank ([defaultN]:, attempt_N/<local_rank>/, agent lines)
  int task = -1;        // SLURM task id (srun --label, %t in file names)
  std::string host;     // short host name (NCCL header, srun lines, torchrun table)
};

/// The five report categories; finer detail lives in rule ids.
enum class Category : std::uint8_t { Oom, Shape, Import, Nccl, Unknown };

/// How a rule's match bears on the root cause. Rules give it (match/rules.*); the report's
/// symptom groups carry it.
enum class RuleRole : std::uint8_t {
  Cause,      // can be the root cause when it is the earliest
  Symptom,    // consequence of another failure (watchdog, communicator aborted, peer reset);
              // the root only when nothing else exists and its category is nccl
  Context,    // a fact (launcher exit, configuration), never the root
  Teardown,   // printed while dying (SIGTERM, destroy_process_group warnings); never the root
};

/// The names below are what users and rule files read; code decides on the enums, never on a
/// name. Each returns a static string for every value.
const char* category_name(Category c);
const char* role_name(RuleRole r);

}  // namespace megatriage
