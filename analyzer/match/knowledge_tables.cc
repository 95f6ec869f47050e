// Knowledge tables: the names of GPU generations and of the slurm_states ids and placeholders
// (the tables themselves are parsed in rules.cc).

#include "match/knowledge_tables.h"

#include <algorithm>
#include <utility>

namespace megatriage {

namespace {

constexpr std::pair<std::string_view, GpuGeneration> kGenerationNames[] = {
    {"older", GpuGeneration::Older},
    {"ampere", GpuGeneration::Ampere},
    {"hopper", GpuGeneration::Hopper},
    {"blackwell", GpuGeneration::Blackwell},
};

constexpr std::string_view kSlurmStateIds[] = {slurm_state::kNodeFail, slurm_state::kOutOfMemory,
                                               slurm_state::kTimeout, slurm_state::kCancelled,
                                               slurm_state::kFailed};

constexpr std::string_view kSlurmStatePlaceholders[] = {
    "job",  "job_id", "nodes", "limit",          "state",    "exit_code",   "meaning",
    "who",  "uid",    "where", "last_iteration", "progress", "at_iteration"};

}  // namespace

std::string_view generation_name(GpuGeneration g) {
  for (const auto& [name, gen] : kGenerationNames) {
    if (gen == g) return name;
  }
  return "";
}

bool parse_generation(std::string_view name, GpuGeneration& out) {
  for (const auto& [n, gen] : kGenerationNames) {
    if (n == name) {
      out = gen;
      return true;
    }
  }
  return false;
}

bool is_slurm_state_id(std::string_view id) {
  return std::find(std::begin(kSlurmStateIds), std::end(kSlurmStateIds), id) != std::end(kSlurmStateIds);
}

bool is_slurm_state_placeholder(std::string_view name) {
  return std::find(std::begin(kSlurmStatePlaceholders), std::end(kSlurmStatePlaceholders), name) !=
         std::end(kSlurmStatePlaceholders);
}

const SlurmStateEntry* find_slurm_state(const std::vector<SlurmStateEntry>& table, std::string_view id) {
  for (const SlurmStateEntry& e : table) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

}  // namespace megatriage
