// GPU generation: compute capability first (exact), then parts of the model name.

#include "lint/gpu_generation.h"

#include <charconv>

namespace megatriage {

GpuGeneration gpu_generation(std::string_view cc, std::string_view model,
                             const std::vector<GpuGenerationEntry>& table) {
  int major = -1;
  // `9.0`, `10.0`: the digits before the dot (the extractor prints nothing else).
  if (std::from_chars(cc.data(), cc.data() + cc.size(), major).ec != std::errc()) major = -1;
  if (major >= 0) {
    for (const GpuGenerationEntry& e : table) {
      if (major >= e.min_major && major <= e.max_major) return e.generation;
    }
  }
  for (const GpuGenerationEntry& e : table) {
    for (const std::string& part : e.models) {
      if (model.find(part) != std::string_view::npos) return e.generation;
    }
  }
  return GpuGeneration::Unknown;
}

}  // namespace megatriage
