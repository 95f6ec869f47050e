#include "scan/pair_index.h"

namespace megatriage {
namespace {

// Lines every failed job prints by the million (NCCL INFO, iteration lines, the arguments dump,
// c10 warnings): a literal is indexed by its byte pair that is rarest in these.
constexpr const char* kNoiseSample[] = {
    "node02:8811:8811 [3] NCCL INFO ncclCommInitRank comm 0x5581c0 rank 11 nranks 16 cudaDev 3 nvmlDev 3 busId 45000 commId 0x1f2e3d4c5b6a7988 - Init COMPLETE",
    "node01:1234:1290 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0",
    "node01:1234:1234 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.1.0.1<0>",
    "node03:4242:4242 [3] NCCL INFO Bootstrap : Using ib0:10.1.0.3<0> Connected all rings, use ring PXN 0 GDR 1",
    " [2024-05-01 12:00:00] iteration      100/   10000 | consumed samples:        25600 | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 400.1 | learning rate: 3.000000E-04 | global batch size:   256 | lm loss: 2.345678E+00 | loss scale: 1.0 | grad norm: 0.345 | number of skipped iterations:   0 | number of nan iterations:   0 |",
    "  tensor_model_parallel_size ...................... 8",
    "[rank3]:[W501 12:00:03.123456789 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 3]  using GPU 3 to perform barrier as devices used by this process are currently unknown.",
};

// How often each byte pair occurs in kNoiseSample (the cost of indexing a literal by it).
const std::array<std::uint8_t, 65536>& noise_pair_counts() {
  static const std::array<std::uint8_t, 65536> counts = [] {
    std::array<std::uint8_t, 65536> c{};
    for (const char* line : kNoiseSample) {
      std::string_view s(line);
      for (std::size_t i = 0; i + 1 < s.size(); ++i) {
        auto& n = c[PairIndex::pair_key(static_cast<unsigned char>(s[i]), static_cast<unsigned char>(s[i + 1]))];
        if (n < 255) ++n;
      }
    }
    return c;
  }();
  return counts;
}

}  // namespace

void PairIndex::add(const std::string& literal, int tag) {
  const auto& noise = noise_pair_counts();
  auto key_at = [&](std::size_t k) {
    return pair_key(static_cast<unsigned char>(literal[k]), static_cast<unsigned char>(literal[k + 1]));
  };
  std::size_t best = 0;
  for (std::size_t k = 1; k + 1 < literal.size() && k < 0xffff; ++k)
    if (noise[key_at(k)] < noise[key_at(best)]) best = k;
  const std::uint16_t key = key_at(best);
  bits_[key >> 6] |= std::uint64_t{1} << (key & 63);
  entries_.push_back({key, static_cast<std::uint16_t>(best), literal, {tag}});
}

void PairIndex::finish() {
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return a.pair != b.pair ? a.pair < b.pair : a.text < b.text;
  });
  // One entry per text, with every tag it was added with.
  std::vector<Entry> merged;
  for (auto& e : entries_) {
    if (!merged.empty() && merged.back().text == e.text)
      merged.back().tags.insert(merged.back().tags.end(), e.tags.begin(), e.tags.end());
    else
      merged.push_back(std::move(e));
  }
  entries_ = std::move(merged);
}

}  // namespace megatriage
