// The environment variables of a vLLM launch that change start-up memory, read from a
// scenario's `engine.env`. Known ones must have a value vLLM or NCCL accepts; every other
// variable is accepted as having no memory effect or refused by name
// (engine/environment_table.h). vLLM has no source patches gpumem models, so
// `engine.patches` must be empty.
#ifndef GPUMEM_ENGINE_VLLM_ENVIRONMENT_H_
#define GPUMEM_ENGINE_VLLM_ENVIRONMENT_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "device/comm.h"
#include "engine/allocator_environment.h"

namespace gpumem::vllm {

struct Environment {
  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS (vllm envs.py); unset: the version's default.
  std::optional<bool> estimate_cudagraphs;
  // VLLM_USE_V2_MODEL_RUNNER (vllm envs.py, three-state from PR #39337): 1 runs Model Runner
  // V2, 0 the V1 runner; unset: the release's default (engine/vllm/model_runner.h).
  std::optional<bool> use_v2_model_runner;
  SourceLoc use_v2_model_runner_loc;
  // VLLM_ALLREDUCE_USE_SYMM_MEM (vllm envs.py); unset: the version's default.
  std::optional<bool> allreduce_use_symm_mem;
  // VLLM_ALLOW_LONG_MAX_MODEL_LEN (vllm config/model.py _get_and_verify_max_len): a
  // --max-model-len above the model's derived length is taken with a warning, not refused.
  bool allow_long_max_model_len = false;
  // VLLM_ATTENTION_BACKEND (vllm envs.py): the backend forced, as --attention-backend does.
  std::optional<std::string> attention_backend;
  SourceLoc attention_backend_loc;
  // NCCL_* variables the NCCL model reads, as the scenario sets them.
  NcclSettings nccl;
  // PYTORCH_CUDA_ALLOC_CONF: the caching allocator's settings.
  AllocatorSettings allocator;
};

Environment read_environment(const ScenarioEngine& engine, Diagnostics& diags);

// The variables `read_environment` reads: vLLM's own, then NCCL's.
std::span<const std::string_view> modelled_variables();

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_ENVIRONMENT_H_
