// What vLLM fills in for flags the user left out: the scheduler's batch limits by GPU class,
// the memory fraction, the CUDA-graph mode and the list of sizes it captures. Pure
// functions of the flags, the version, the GPU and the model's context length.
#ifndef GPUMEM_ENGINE_VLLM_ENGINE_DEFAULTS_H_
#define GPUMEM_ENGINE_VLLM_ENGINE_DEFAULTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/units.h"
#include "engine/vllm/flags.h"
#include "engine/vllm/version.h"

namespace gpumem::vllm {

// The GPU as vLLM's defaults see it (platforms/cuda.py get_device_total_memory, CUDA's
// total; get_device_name, e.g. "NVIDIA A100-SXM4-80GB").
struct DeviceClass {
  Bytes total_memory;
  std::string device_name;
};

// vllm engine/arg_utils.py EngineArgs.get_batch_defaults: for `vllm serve`
// (UsageContext.OPENAI_API_SERVER) 8192 tokens and 1024 sequences on GPUs of at least 70 GiB
// that are not A100s, else 2048 and 256; for the Python LLM class (`offline`,
// UsageContext.LLM_CLASS) 16384 and 1024, else 8192 and 256.
struct BatchDefaults {
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
};
BatchDefaults batch_defaults(const DeviceClass& device, bool offline);

struct ResolvedArgs {
  double gpu_memory_utilization = 0;
  std::int64_t max_model_len = 0;
  std::int64_t max_num_seqs = 0;
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t num_speculative_tokens = 0;
  CudagraphMode cudagraph_mode = CudagraphMode::kNone;
  // Capture sizes in tokens, ascending; the mixed-batch (PIECEWISE, or FULL in FULL mode)
  // and uniform-decode FULL lists the dispatcher captures.
  std::vector<std::int64_t> capture_sizes;
  std::vector<std::int64_t> piecewise_sizes;
  std::vector<std::int64_t> full_sizes;
  std::int64_t max_cudagraph_capture_size = 0;
};

// vllm config/vllm.py VllmConfig._set_cudagraph_sizes (both families, see version.h).
// `explicit_sizes` wins; otherwise sizes up to `max_size` (0: the default maximum).
std::vector<std::int64_t> cudagraph_capture_sizes(const VersionRules& rules,
                                                  std::int64_t max_num_seqs,
                                                  std::int64_t max_num_batched_tokens,
                                                  std::int64_t num_speculative_tokens,
                                                  const std::vector<std::int64_t>& explicit_sizes,
                                                  std::int64_t max_size);

// Everything above for one launch; `max_model_len` is already resolved against the model.
ResolvedArgs resolve_engine_args(const EngineFlags& flags, const VersionRules& rules,
                                 const DeviceClass& device, std::int64_t max_model_len);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_ENGINE_DEFAULTS_H_
