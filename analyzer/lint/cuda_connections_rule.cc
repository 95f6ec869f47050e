// The runbook's CUDA_DEVICE_MAX_CONNECTIONS rule. With 1, kernels start in launch order, which
// Megatron's TP/CP communication overlap relies on before Blackwell (it asserts on it); FSDP's
// overlap needs several connections, MoE expert-parallel overlap 32. The clause order is the
// runbook's precedence.

#include "lint/cuda_connections_rule.h"

namespace megatriage {

CudaConnectionsRequirement cuda_connections_requirement(const CudaConnectionsSetup& s) {
  using V = CudaConnectionsValue;
  if (s.fsdp) return {V::NotOne, "not 1 (unset or > 1)", "FSDP (Torch-FSDP2 / Megatron-FSDP) is on"};
  if (s.moe_overlap) return {V::ThirtyTwo, "32", "overlap_moe_expert_parallel_comm is on"};
  if (s.gpu == GpuGeneration::Blackwell) return {V::Unset, "unset (not needed)", "Blackwell GPUs"};
  if ((s.tp && *s.tp > 1) || (s.cp && *s.cp > 1)) {
    if (s.gpu == GpuGeneration::Unknown) {
      return {V::One, "1 on Hopper/Ampere", "TP>1 or CP>1 without FSDP; GPU generation unknown"};
    }
    return {V::One, "1", "TP>1 or CP>1 without FSDP on " + std::string(generation_name(s.gpu))};
  }
  if (s.tp && s.cp) return {V::Unset, "unset (not needed)", "TP=1 and CP=1"};
  return {};
}

bool cuda_connections_value_fits(CudaConnectionsValue required, std::string_view value) {
  switch (required) {
    case CudaConnectionsValue::One: return value == "1";
    case CudaConnectionsValue::NotOne: return value != "1";
    case CudaConnectionsValue::ThirtyTwo: return value == "32";
    case CudaConnectionsValue::Unset:
    case CudaConnectionsValue::Undecided: return true;
  }
  return true;
}

}  // namespace megatriage
