// The environment variables and source patches of an SGLang launch that change start-up
// memory, read from a scenario's `engine.env` and `engine.patches`.
//
// Known variables must have a value SGLang or NCCL accepts; every other variable is accepted
// as having no memory effect or refused by name (engine/environment_table.h).
#ifndef GPUMEM_ENGINE_SGLANG_ENVIRONMENT_H_
#define GPUMEM_ENGINE_SGLANG_ENVIRONMENT_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "device/comm.h"
#include "engine/allocator_environment.h"

namespace gpumem::sglang {

enum class AllReduceAlgo { kAuto, kOneStage, kTwoStage };

struct Environment {
  // SGLANG_CUSTOM_ALLREDUCE_ALGO (sglang v0.5.9 sgl-kernel custom_all_reduce.cuh allreduce):
  // 1stage|oneshot, 2stage|twoshot; anything else makes the kernel throw.
  AllReduceAlgo custom_allreduce_algo = AllReduceAlgo::kAuto;
  // SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK (sglang v0.5.9 environ.py), default true.
  bool tp_memory_imbalance_is_error = true;
  // SGLANG_FLASHINFER_WORKSPACE_SIZE in bytes (sglang v0.5.9 environ.py), if set.
  std::optional<Bytes> flashinfer_workspace_size;
  // SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN (sglang v0.5.9 configs/model_config.py
  // ModelConfig.__init__): a --context-length above the model's derived one is taken with a
  // warning instead of a ValueError.
  bool allow_longer_context = false;
  // NCCL_* variables the NCCL model reads.
  NcclSettings nccl;
  // PYTORCH_CUDA_ALLOC_CONF: the caching allocator's settings.
  AllocatorSettings allocator;
  // Patch: lift SGLang's "not supported on more than two PCIe-only GPUs" gate of custom
  // all-reduce (sglang v0.5.9 custom_all_reduce.py CustomAllreduce.__init__).
  bool patch_custom_all_reduce_on_pcie = false;
};

Environment read_environment(const ScenarioEngine& engine, Diagnostics& diags);

// The variables `read_environment` reads: SGLang's own, then NCCL's.
std::span<const std::string_view> modelled_variables();

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_ENVIRONMENT_H_
