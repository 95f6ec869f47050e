#include "decide/job_hosts.h"

namespace megatriage {

void HostsByRank::add(int rank, const std::string& host) {
  if (rank < 0 || rank > kMaxRank || host.empty() || host == "localhost") return;
  if (static_cast<std::size_t>(rank) >= hosts_.size()) hosts_.resize(static_cast<std::size_t>(rank) + 1);
  if (hosts_[static_cast<std::size_t>(rank)] == nullptr) hosts_[static_cast<std::size_t>(rank)] = &host;
}

const std::string* HostsByRank::find(int rank) const {
  return rank >= 0 && static_cast<std::size_t>(rank) < hosts_.size() ? hosts_[static_cast<std::size_t>(rank)] : nullptr;
}

JobHosts hosts_of_ranks(const std::vector<TimelineEntry>& timeline, const std::optional<Finding>& finding) {
  JobHosts hosts;
  // The root's host as attribution found it (the launcher's table, srun's task lines): its rank's.
  if (finding) hosts.by_rank.add(finding->who.rank, finding->who.host);
  for (const TimelineEntry& t : timeline) {
    const Event& e = *t.event;
    hosts.by_rank.add(e.who.rank, e.who.host);
    hosts.by_task.add(e.who.task, e.who.host);
    if (e.kind == EventKind::ChildFailure) hosts.by_rank.add(e.child->rank, e.who.host);
  }
  return hosts;
}

}  // namespace megatriage
