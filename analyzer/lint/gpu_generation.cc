// GPU generation: compute capability first (exact), then substrings of the model name.

#include "lint/gpu_generation.h"

#include <cctype>

namespace megatriage {

namespace {

struct ModelFamily {
  std::string_view needle;
  GpuGeneration generation;
};

// Checked in order, newest generation first: the first family whose name is in the model wins.
// `GB200` and `GH200` contain `B200` and `H200`; they are listed anyway for the reader.
constexpr ModelFamily kModelFamilies[] = {
    {"B200", GpuGeneration::Blackwell}, {"GB200", GpuGeneration::Blackwell},
    {"B100", GpuGeneration::Blackwell}, {"GB300", GpuGeneration::Blackwell},
    {"H100", GpuGeneration::Hopper},    {"H200", GpuGeneration::Hopper},
    {"H800", GpuGeneration::Hopper},    {"GH200", GpuGeneration::Hopper},
    {"A100", GpuGeneration::Ampere},    {"A800", GpuGeneration::Ampere},
    {"A10", GpuGeneration::Ampere},     {"A40", GpuGeneration::Ampere},
};

}  // namespace

GpuGeneration gpu_generation(std::string_view cc, std::string_view model) {
  if (!cc.empty()) {
    const int major = cc[0] - '0';
    if (major >= 10) return GpuGeneration::Blackwell;
    // Two-digit majors (`10.0`, `12.0`) are Blackwell and later.
    if (cc.size() >= 2 && cc[0] == '1' && std::isdigit(static_cast<unsigned char>(cc[1]))) {
      return GpuGeneration::Blackwell;
    }
    if (major == 9) return GpuGeneration::Hopper;
    if (major == 8) return GpuGeneration::Ampere;
    if (major >= 0 && major <= 7) return GpuGeneration::Older;
  }
  for (const ModelFamily& f : kModelFamilies) {
    if (model.find(f.needle) != std::string_view::npos) return f.generation;
  }
  return GpuGeneration::Unknown;
}

std::string_view generation_name(GpuGeneration g) {
  switch (g) {
    case GpuGeneration::Unknown: return "";
    case GpuGeneration::Older: return "older";
    case GpuGeneration::Ampere: return "ampere";
    case GpuGeneration::Hopper: return "hopper";
    case GpuGeneration::Blackwell: return "blackwell";
  }
  return "";
}

}  // namespace megatriage
