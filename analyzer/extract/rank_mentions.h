// Extract stage: which ranks a file's rank-bearing lines name — line prefixes (`[rank3]:`) and
// NCCL's communicator init lines (`comm 0x... rank 3 nranks 8 cudaDev 3 ... - Init COMPLETE`).
// The root-cause stage asks whether they all name one rank: an unprefixed traceback in such a
// file (a per-rank file) is that rank's (decide/rank_attribution.h). Knows nothing of events.
#pragma once

#include <string_view>
#include <vector>

namespace megatriage {

/// Distinct ranks seen, kept up to two (two means "several"). Copyable (watch snapshots).
class RankMentions {
 public:
  /// A line whose prefix names `rank` (-1: none).
  void note_prefix(int rank) {
    if (rank >= 0) note(prefix_, rank);
  }
  /// The body of a line the trigger search showed: an NCCL communicator line counts with the
  /// rank it names in the largest communicator seen (the world's; a sub-communicator's rank is
  /// not the global rank).
  void feed(std::string_view body);
  /// The distinct ranks named, sorted; at most two.
  std::vector<int> ranks() const;

 private:
  static void note(std::vector<int>& seen, int rank);
  std::vector<int> prefix_;
  std::vector<int> nccl_;     // ranks in communicators of nccl_size_ members
  int nccl_size_ = 0;
};

}  // namespace megatriage
