// GPU generation: which NVIDIA architecture a job ran on, from the compute capability or the
// model name the logs print. The runbook's CUDA_DEVICE_MAX_CONNECTIONS rule depends on it.
// Only the generations that rule distinguishes are named; everything else is Unknown.
#pragma once

#include <cstdint>
#include <string_view>

namespace megatriage {

enum class GpuGeneration : std::uint8_t { Unknown, Older, Ampere, Hopper, Blackwell };

/// The generation from a compute capability (`9.0`, `10.0`, `12.0`) when given, else from a
/// model name (`NVIDIA H100 80GB HBM3`, `GB200`); Unknown when neither says.
GpuGeneration gpu_generation(std::string_view compute_capability, std::string_view model);

/// `older`, `ampere`, `hopper`, `blackwell`; empty for Unknown (the spelling in check texts).
std::string_view generation_name(GpuGeneration g);

}  // namespace megatriage
