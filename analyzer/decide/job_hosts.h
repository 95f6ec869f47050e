// The host of each rank and of each SLURM task, as any event of the job names it. Read by the
// symptom groups (how many hosts a symptom touched) and the HTML report's rank timeline (which
// host a rank's row belongs under). Decides nothing about the root.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "decide/root_cause.h"

namespace megatriage {

/// Host per rank (or task) id. `localhost` names no host; a garbled huge id is ignored.
/// Holds pointers into the events' strings: valid while the timeline's FileResults live.
class HostsByRank {
 public:
  void add(int rank, const std::string& host);
  const std::string* find(int rank) const;

 private:
  static constexpr int kMaxRank = 1 << 20;  // a garbled rank must not size the table
  std::vector<const std::string*> hosts_;
};

/// Ranks' and SLURM tasks' hosts: one task per node when srun starts the launchers, one per rank
/// when it starts the ranks; either way a task has one host.
struct JobHosts {
  HostsByRank by_rank, by_task;
  /// The host of the writer `who`, by its rank, else its task; nullptr when unknown.
  const std::string* find(const Attribution& who) const {
    if (const std::string* h = by_rank.find(who.rank)) return h;
    return by_task.find(who.task);
  }
};

/// From every event's own line (an NCCL header, srun's label, the file's name) and torchelastic's
/// failure table (rank and host of every failed worker), plus the root's host as attribution
/// found it.
JobHosts hosts_of_ranks(const std::vector<TimelineEntry>& timeline, const std::optional<Finding>& finding);

}  // namespace megatriage
