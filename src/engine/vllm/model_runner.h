// Which GPU model runner a vLLM start-up runs: the V1 runner (v1/worker/gpu_model_runner.py)
// or Model Runner V2 (v1/worker/gpu/model_runner.py). Both run under the same worker, so the
// budget, the profile and the KV sizing are one code path; what differs for memory is the
// CUDA-graph estimate charged before the KV cache: V2's profile_cudagraph_memory returns 0
// until v0.29.0 (the graphs are captured after the KV cache has taken the whole budget), and
// from v0.29.0 captures every PIECEWISE graph and two FULL ones instead of V1's two of each.
// The choice follows vllm config/vllm.py use_v2_model_runner: VLLM_USE_V2_MODEL_RUNNER when
// set, else the release's default (VersionRules::v2_runner_default), and the features V2 does
// not support fall back to V1 (or, asked for by the variable, stop the start-up).
#ifndef GPUMEM_ENGINE_VLLM_MODEL_RUNNER_H_
#define GPUMEM_ENGINE_VLLM_MODEL_RUNNER_H_

#include <optional>
#include <string>

#include "catalog/architecture.h"
#include "engine/vllm/flags.h"
#include "engine/vllm/version.h"

namespace gpumem::vllm {

struct ModelRunnerChoice {
  bool v2 = false;
  std::string why;    // for the report: "Model Runner V2: the default for every model it ..."
  std::string error;  // VLLM_USE_V2_MODEL_RUNNER=1 on what V2 does not support: vLLM's ValueError
  // The warning a fallback to V1 logs (v0.29.0 on); "" when there is none.
  std::string warning;
};

// `forced`: VLLM_USE_V2_MODEL_RUNNER as the environment sets it.
ModelRunnerChoice choose_model_runner(const VersionRules& rules, const Architecture& model,
                                      const EngineFlags& flags, std::optional<bool> forced);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_MODEL_RUNNER_H_
