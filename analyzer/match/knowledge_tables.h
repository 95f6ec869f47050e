// Knowledge tables: what rules/ knows besides log-line rules — GPU generations, the OOM phase of
// a traceback's frames, and which launch-script finding can explain which failure category.
// rules.cc parses and validates them beside the rules (`rules.*` diagnostics); the stages that
// use them (checks, lint glue) hold the lookups. Plain data; no JSON here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace megatriage {

/// The GPU generations the runbook's CUDA_DEVICE_MAX_CONNECTIONS rule distinguishes.
enum class GpuGeneration : std::uint8_t { Unknown, Older, Ampere, Hopper, Blackwell };

/// `older`, `ampere`, `hopper`, `blackwell`; empty for Unknown (the spelling in check texts and
/// the id of a `gpu_generations` entry).
std::string_view generation_name(GpuGeneration g);

/// The generation named `name`; false for an unknown name (and for the empty one).
bool parse_generation(std::string_view name, GpuGeneration& out);

/// One `gpu_generations` entry of `gpus.json`.
struct GpuGenerationEntry {
  GpuGeneration generation = GpuGeneration::Unknown;  // the entry's id
  int min_major = -1, max_major = -1;  // compute capability majors, inclusive; -1: none
  std::vector<std::string> models;     // substrings of the model name (`H100`, `GB200`)
  std::string source;                  // file:line
};

/// One `oom_phases` entry of `oom-phases.json`: a frame is in this phase when its function is
/// one of `functions` or its path contains one of `path_parts`.
struct OomPhaseEntry {
  std::string phase;  // the entry's id: `backward`, `optimizer`, ...
  std::vector<std::string> functions;
  std::vector<std::string> path_parts;
  std::string source;
};

/// One `lint_rules` entry of `lint.json`: report categories a finding of `id` can explain alone.
struct LintRuleEntry {
  std::string id;  // `lint.kebab-name`, as LintFinding::rule
  std::vector<std::string> explains;
  std::string source;
};

/// Every table, in file order (which is lookup order: the first matching entry wins). A later
/// rules directory's entry with the same id replaces the earlier one in place.
struct KnowledgeTables {
  std::vector<GpuGenerationEntry> gpu_generations;
  std::vector<OomPhaseEntry> oom_phases;
  std::vector<LintRuleEntry> lint_rules;
};

}  // namespace megatriage
