// GPU generation: which NVIDIA architecture a job ran on, from the compute capability or the
// model name the logs print, looked up in the `gpu_generations` table (rules/gpus.json). The
// runbook's CUDA_DEVICE_MAX_CONNECTIONS rule depends on it.
#pragma once

#include <string_view>
#include <vector>

#include "match/knowledge_tables.h"

namespace megatriage {

/// The generation from a compute capability (`9.0`, `10.0`) when given and some entry's major
/// range holds it; else the first entry, in table order, whose model name part occurs in
/// `model` (`NVIDIA H100 80GB HBM3`); Unknown when neither says.
GpuGeneration gpu_generation(std::string_view compute_capability, std::string_view model,
                             const std::vector<GpuGenerationEntry>& table);

}  // namespace megatriage
