// Extract stage: configuration and progress facts from the line bodies of ONE stream — Megatron's
// arguments dump and startup prints (world size, parallel sizes, batch sizes), memory reports,
// iteration lines, launcher `KEY=value` echoes and the GPU model. A small state machine that is
// idle (a first-byte switch plus a literal scan) on ordinary lines. It reports what was printed
// and derives nothing: consistency checks (TP x DP x CP x PP = world size, ...) live in checks.*.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.h"

namespace megatriage {

/// Per-stream state machine that reads configuration/progress facts from line bodies (prefixes
/// already stripped). Idle and nearly free on ordinary lines: it must reject a line after looking
/// at its first few bytes unless the line can carry a fact (a cheap gate on the first bytes /
/// a fixed literal, no regex, no allocation when nothing is found).
/// One instance per stream (file + prefix rank): the arguments dump spans many lines and
/// interleaved streams would otherwise confuse it. Not thread-safe; cheap to copy.
class ConfigExtractor {
 public:
  /// Gives the facts found on this line to `out` (with `line` and, when known, `rank`).
  /// `body` is only read during the call. Values are as printed (trimmed), capped at
  /// kMaxFactValueBytes. `may_name_gpu` false: the caller knows the line holds none of
  /// gpu_vendor_literals(), so the GPU scan is skipped.
  void feed(std::string_view body, std::uint64_t line, int rank, FactOut& out, bool may_name_gpu = true);
  /// The same, appending every fact to `out`.
  void feed(std::string_view body, std::uint64_t line, int rank, std::vector<Fact>& out,
            bool may_name_gpu = true);

  /// What a line naming a GPU model holds (`NVIDIA H100`, `Tesla V100`); among trigger_literals().
  static const std::vector<std::string>& gpu_vendor_literals();

  /// Literals of which every fact-bearing line outside the arguments dump contains at least one
  /// (banners, startup prints, memory and iteration lines, env echoes, GPU names). A fast
  /// scanner may skip lines without them while in_args_dump() is false. Keep in step with feed().
  static const std::vector<std::string>& trigger_literals();

  /// True between the `arguments` and `end of arguments` banners.
  bool in_args_dump() const { return in_dump_; }

  /// Longest value copied into a Fact (a `data_path` blend can be kilobytes long); longer values
  /// are cut and end in "...".
  static constexpr std::size_t kMaxFactValueBytes = 1024;

 private:
  bool in_dump_ = false;
  // Lines seen inside the dump that were not dump lines; a dump cut short (crash while
  // printing, lost end banner) must not keep the extractor in dump mode for the whole file.
  int dump_gap_lines_ = 0;
};

/// The world-size line in every Megatron version shape (≤core_v0.8 no comma after CP and trailing
/// space; v0.9 encoder sizes; r0.10–0.12 `hierarchical context-parallel sizes: Nonetensor-model-parallel size`
/// glued; v0.13; ≥v0.14). Returns false if `body` is not such a line.
/// Appends world_size, data_parallel_size, context_parallel_size (when printed),
/// tensor_model_parallel_size and pipeline_model_parallel_size with line 0 and rank -1; appends
/// nothing when it returns false.
bool parse_world_size_line(std::string_view body, std::vector<Fact>& out);

/// One argument-dump line `  name ..... value` (dots may be absent for names ≥48 chars: two spaces
/// then the value). Returns false if it is not one.
/// `value` is Python's str() as printed, trimmed (`None`, `True`, `[0.9, 0.95]`, possibly empty).
/// Leaves `key` and `value` unspecified when it returns false.
bool parse_args_dump_line(std::string_view body, std::string& key, std::string& value);

}  // namespace megatriage
