// Facts: configuration and progress figures read from the logs (Megatron's arguments dump and
// startup prints, launcher echoes, memory reports, iteration lines, GPU model). Plain data; the
// extractors that produce them live in megatron_config.* and the checks that use them in
// checks.*.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace megatriage {

/// One fact as seen on one line. Keys are snake_case (e.g. `tensor_model_parallel_size`,
/// `micro_batch_size`, `master_addr`, `last_iteration`, `peak_allocated_mb`, `gpu_model`).
struct Fact {
  std::string key;
  std::string value;        // as printed (Python str() for dump values)
  std::uint64_t line = 0;   // where it was seen (file is the FileResult's)
  int rank = -1;            // whose line it was, when known ([Rank N] in a memory report, prefix)
};

}  // namespace megatriage
