// The runbook's CUDA_DEVICE_MAX_CONNECTIONS rule, written once: `megatriage lint` applies it to
// what a batch script shows (FSDP and MoE-overlap flags), the checks stage to what the logs show
// (GPU generation, TP, CP, the same flags). It decides the required value only; each caller
// words its own finding or check.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lint/gpu_generation.h"

namespace megatriage {

/// What a setup knows; an unknown size is nullopt, an unknown GPU is GpuGeneration::Unknown.
struct CudaConnectionsSetup {
  GpuGeneration gpu = GpuGeneration::Unknown;
  std::optional<long long> tp, cp;  // tensor / context parallel sizes
  bool fsdp = false;                // Torch-FSDP2, Megatron-FSDP or custom FSDP is on
  bool moe_overlap = false;         // overlap_moe_expert_parallel_comm is on
};

enum class CudaConnectionsValue : std::uint8_t {
  Undecided,  // the setup does not say enough (no TP/CP sizes)
  One,        // exactly 1: TP>1 or CP>1 without FSDP on pre-Blackwell GPUs
  NotOne,     // anything but 1: FSDP is on
  ThirtyTwo,  // exactly 32: MoE expert-parallel communication overlap
  Unset,      // not needed: any value is harmless
};

struct CudaConnectionsRequirement {
  CudaConnectionsValue value = CudaConnectionsValue::Undecided;
  std::string required;  // how a check prints it: `1`, `not 1 (unset or > 1)`, ...; empty if Undecided
  std::string why;       // which clause of the rule applies, e.g. `Blackwell GPUs`
};

/// The runbook rule. Clauses in order, the first that applies wins: FSDP → not 1; MoE overlap
/// → 32; Blackwell → unset; TP>1 or CP>1 → 1; TP=1 and CP=1 → unset; else undecided.
CudaConnectionsRequirement cuda_connections_requirement(const CudaConnectionsSetup& setup);

/// Whether `value` (as exported, e.g. `1`) meets the requirement; always true for Unset and
/// Undecided.
bool cuda_connections_value_fits(CudaConnectionsValue required, std::string_view value);

}  // namespace megatriage
