// Knowledge tables: the names of GPU generations (the tables themselves are parsed in rules.cc).

#include "match/knowledge_tables.h"

#include <utility>

namespace megatriage {

namespace {

constexpr std::pair<std::string_view, GpuGeneration> kGenerationNames[] = {
    {"older", GpuGeneration::Older},
    {"ampere", GpuGeneration::Ampere},
    {"hopper", GpuGeneration::Hopper},
    {"blackwell", GpuGeneration::Blackwell},
};

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

}  // namespace megatriage
