// Facts: configuration and progress figures read from the logs (Megatron's arguments dump and
// startup prints, launcher echoes, memory reports, iteration lines, GPU model). Plain data; the
// extractors that produce them live in megatron_config.* and the checks that use them in
// checks.*.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
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

/// Where an extractor puts the facts it reads, one call per fact; the views are valid during
/// the call only. A file's analysis keeps only what the registry's merge keeps (FactKeeper),
/// without building a Fact for the rest; FactList keeps them all.
class FactOut {
 public:
  virtual void add(std::string_view key, std::string_view value, std::uint64_t line, int rank) = 0;
  /// A line whose facts the next line of its kind replaces (Megatron prints an iteration line
  /// every step): `parse` adds them, `keys` are all it may add. True: kept to be parsed when
  /// its facts can still matter; false: the caller parses it now.
  struct ReplacedLine {
    bool (*parse)(std::string_view text, std::uint64_t line, int rank, FactOut& out);
    std::span<const std::string_view> keys;
  };
  virtual bool defer(std::string_view text, std::uint64_t line, int rank, const ReplacedLine& kind) {
    (void)text, (void)line, (void)rank, (void)kind;
    return false;
  }

 protected:
  ~FactOut() = default;
};

/// Every fact, in order, appended to a vector.
class FactList final : public FactOut {
 public:
  explicit FactList(std::vector<Fact>& facts) : facts_(facts) {}
  void add(std::string_view key, std::string_view value, std::uint64_t line, int rank) override {
    facts_.push_back(Fact{std::string(key), std::string(value), line, rank});
  }

 private:
  std::vector<Fact>& facts_;
};

}  // namespace megatriage
