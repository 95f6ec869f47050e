#include "extract/rank_mentions.h"

#include <algorithm>
#include <charconv>

namespace megatriage {
namespace {

// The number that `s` starts with, -1 if none.
int leading_number(std::string_view s) {
  int v = -1;
  if (std::from_chars(s.data(), s.data() + s.size(), v).ec != std::errc()) return -1;
  return v;
}

// `rank <R> nranks <N>` (NCCL ≥ 2.x init line) or `rank <R> nRanks <N>`: R and N, or false.
bool communicator_rank(std::string_view body, int& rank, int& size) {
  std::size_t at = body.find(" nranks ");
  if (at == std::string_view::npos) at = body.find(" nRanks ");
  if (at == std::string_view::npos) return false;
  size = leading_number(body.substr(at + 8));
  std::string_view before = body.substr(0, at);
  std::size_t digits = before.find_last_not_of("0123456789");
  if (digits == std::string_view::npos || digits + 1 == before.size()) return false;
  constexpr std::string_view kRank = " rank ";
  if (digits + 1 < kRank.size() || before.substr(digits + 1 - kRank.size(), kRank.size()) != kRank) return false;
  rank = leading_number(before.substr(digits + 1));
  return rank >= 0 && size > 0 && rank < size;
}

}  // namespace

void RankMentions::note(std::vector<int>& seen, int rank) {
  if (seen.size() >= 2 || std::find(seen.begin(), seen.end(), rank) != seen.end()) return;
  seen.push_back(rank);
}

void RankMentions::feed(std::string_view body) {
  int rank = -1, size = 0;
  if (!communicator_rank(body, rank, size) || size < nccl_size_) return;
  if (size > nccl_size_) {
    nccl_size_ = size;
    nccl_.clear();
  }
  note(nccl_, rank);
}

std::vector<int> RankMentions::ranks() const {
  std::vector<int> all = prefix_;
  for (int r : nccl_) note(all, r);
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace megatriage
