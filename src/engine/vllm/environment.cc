#include "engine/vllm/environment.h"

#include <vector>

#include "engine/env_value.h"
#include "engine/nccl_environment.h"

namespace gpumem::vllm {

Environment read_environment(const ScenarioEngine& engine, Diagnostics& diags) {
  Environment env;
  for (const EnvVar& v : engine.env) {
    const EnvValueReader read(v, diags);
    if (v.name == "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS") {
      read.as_bool(env.estimate_cudagraphs);
    } else if (v.name == "VLLM_ALLREDUCE_USE_SYMM_MEM") {
      read.as_bool(env.allreduce_use_symm_mem);
    } else {
      read_nccl_variable(v, env.nccl, diags);
    }
  }
  for (size_t i = 0; i < engine.patches.size(); ++i) {
    diags.error(engine.patch_locs[i],
                "unknown vLLM patch '" + engine.patches[i] + "'; gpumem models no vLLM patches");
  }
  return env;
}

std::span<const std::string_view> modelled_variables() {
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names = {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS",
                                           "VLLM_ALLREDUCE_USE_SYMM_MEM"};
    for (std::string_view n : nccl_variables()) names.push_back(n);
    return names;
  }();
  return kNames;
}

}  // namespace gpumem::vllm
