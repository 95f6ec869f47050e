// rank_mentions: the ranks a file's rank-bearing lines name (prefixes, NCCL communicator lines).
#include "extract/rank_mentions.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace megatriage {

TEST_SUITE("rank_mentions") {
TEST_CASE("rank_mentions: prefixes and NCCL init lines, table-driven") {
  struct Case {
    std::vector<int> prefixes;
    std::vector<std::string> bodies;
    std::vector<int> want;
  };
  const std::vector<Case> cases = {
      {{}, {}, {}},
      {{3, 3}, {}, {3}},
      {{1, 0}, {}, {0, 1}},
      {{4, 5, 6}, {}, {4, 5}},  // kept up to two: "several"
      // NCCL 2.2x and older init lines name the rank within the communicator.
      {{}, {"node1:1234:1250 [3] NCCL INFO comm 0x55d5c6f1b0a0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 18000 commId 0x1 - Init COMPLETE"}, {3}},
      {{}, {"NCCL INFO comm 0x7f6c8c002f00 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0"}, {1}},
      // A sub-communicator's rank (a TP group of 2) is not the global rank: the largest counts.
      {{}, {"comm 0x1 rank 5 nranks 8 cudaDev 1 - Init COMPLETE", "comm 0x2 rank 1 nranks 2 cudaDev 1 - Init COMPLETE"}, {5}},
      {{}, {"comm 0x2 rank 1 nranks 2 cudaDev 1 - Init COMPLETE", "comm 0x1 rank 5 nranks 8 cudaDev 1 - Init COMPLETE"}, {5}},
      // Not communicator lines.
      {{}, {"frank 3 nranks 8", "rank x nranks 8", "rank 9 nranks 8", "nranks 8"}, {}},
      {{2}, {"comm 0x1 rank 2 nranks 4 - Init COMPLETE"}, {2}},
      {{2}, {"comm 0x1 rank 3 nranks 4 - Init COMPLETE"}, {2, 3}},
  };
  for (const Case& c : cases) {
    RankMentions m;
    for (int r : c.prefixes) m.note_prefix(r);
    for (const std::string& b : c.bodies) m.feed(b);
    CAPTURE(c.want.size());
    CHECK(m.ranks() == c.want);
  }
}
}

}  // namespace megatriage
