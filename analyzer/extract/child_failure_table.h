// Extract stage: torchelastic's ChildFailedError table (`Failures:` / `Root Cause (first
// observed failure)`, then per failed child `time`, `host`, `rank`, `exitcode` rows), read one
// line body at a time into ChildFailure entries. It knows the table's layout only; the events
// made from the entries (stream, attribution, time) are the extractor's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/types.h"

namespace megatriage {

/// One entry of a ChildFailedError table (`rank : 3 (local_rank: 1)`, `exitcode : -9 (pid: N)`).
struct ChildFailure {
  int rank = -1, local_rank = -1, exitcode = 0, pid = -1;
  std::string host;      // as printed (often a FQDN or `localhost`)
  bool root_cause_section = false;  // listed under "Root Cause (first observed failure)"
  int table_index = 0;   // which table in the file (0-based)
};

/// An entry as read, with where it starts.
struct ChildFailureEntry {
  ChildFailure child;
  std::uint64_t first_line = 0, first_offset = 0;  // its `time` row
  std::optional<CivilTime> stamp;                   // the stamp read on its `time` row
};

/// Reads the tables of one file (all streams together: torchelastic's agent prints them).
/// Copyable (the watcher's snapshots copy the extractor). Allocates only for a host name.
class ChildFailureTable {
 public:
  /// The line heads of the table's rows and headings: lines without one are no business of
  /// the table, so the trigger search may skip them.
  static const std::vector<std::string_view>& trigger_literals();

  /// Feeds the body (prefix removed) of one line; `stamp` is the one read on it, if any.
  /// Returns true when the line completed an entry (its `exitcode` row); entry() holds it until
  /// the next feed().
  bool feed(std::string_view body, std::uint64_t line, std::uint64_t offset,
            const std::optional<CivilTime>& stamp) {
    // Rows start with two spaces, headings with 'F' or 'R', and all are longer: most lines
    // stop here, inline in the extractor's per-line code.
    if (body.size() < 8 || (body[0] != ' ' && body[0] != 'F' && body[0] != 'R')) return false;
    return feed_row(body, line, offset, stamp);
  }
  const ChildFailureEntry& entry() const { return pending_; }

 private:
  bool feed_row(std::string_view body, std::uint64_t line, std::uint64_t offset,
                const std::optional<CivilTime>& stamp);

  ChildFailureEntry pending_;
  bool have_pending_ = false;  // a `time` row was read, its `exitcode` row not yet
  int table_index_ = 0;        // tables seen so far (a `Failures:` heading each)
  bool in_root_section_ = false;
};

}  // namespace megatriage
