#include "engine/vllm/environment.h"

#include <vector>

#include "engine/allocator_environment.h"
#include "engine/env_value.h"
#include "engine/environment_table.h"
#include "engine/nccl_environment.h"
#include "engine/vllm/newest_environment.h"

namespace gpumem::vllm {

namespace {

constexpr std::string_view kLogging = "what vLLM logs and how (vllm envs.py)";
constexpr std::string_view kRocmOnly =
    "read by the ROCm attention backends only; no effect on NVIDIA GPUs (vllm envs.py)";
constexpr std::string_view kServer = "the API server's and workers' networking (vllm envs.py)";

// vllm envs.py (v0.10 to v0.21): the variables read for something other than GPU memory, and
// those whose memory effect gpumem does not model.
constexpr EnvRule kRules[] = {
    {"VLLM_HOST_IP", {}, kServer},
    {"VLLM_PORT", {}, kServer},
    {"VLLM_RPC_BASE_PATH", {}, kServer},
    {"VLLM_RPC_TIMEOUT", {}, kServer},
    {"VLLM_HTTP_TIMEOUT_KEEP_ALIVE", {}, kServer},
    {"VLLM_API_KEY", {}, kServer},
    {"VLLM_ENGINE_ITERATION_TIMEOUT_S", {}, kServer},
    {"VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS", {}, kServer},
    {"VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", {}, kServer},
    {"VLLM_CONFIGURE_LOGGING", {}, kLogging},
    {"VLLM_LOGGING_LEVEL", {}, kLogging},
    {"VLLM_LOGGING_PREFIX", {}, kLogging},
    {"VLLM_LOGGING_CONFIG_PATH", {}, kLogging},
    {"VLLM_NO_DEPRECATION_WARNING", {}, kLogging},
    {"VLLM_DEBUG_LOG_API_SERVER_RESPONSE", {}, kLogging},
    {"VLLM_NO_USAGE_STATS", {}, "usage statistics (vllm envs.py)"},
    {"VLLM_DO_NOT_TRACK", {}, "usage statistics (vllm envs.py)"},
    {"VLLM_USAGE_SOURCE", {}, "usage statistics (vllm envs.py)"},
    {"VLLM_USE_MODELSCOPE", {}, "where the checkpoint is fetched (vllm envs.py)"},
    {"VLLM_CACHE_ROOT", {}, "where vLLM caches files on disk (vllm envs.py)"},
    {"VLLM_CONFIG_ROOT", {}, "where vLLM finds its configuration files (vllm envs.py)"},
    {"VLLM_DISABLE_COMPILE_CACHE",
     {},
     "whether torch.compile's artefacts are cached on disk (vllm envs.py)"},
    {"VLLM_NCCL_SO_PATH", {}, "which NCCL library file is loaded (vllm envs.py)"},
    {"VLLM_WORKER_MULTIPROC_METHOD",
     {},
     "how worker processes are started, fork or spawn (vllm envs.py)"},
    {"VLLM_USE_TRITON_FLASH_ATTN", {}, kRocmOnly},
    {"VLLM_V1_USE_PREFILL_DECODE_ATTENTION", {}, kRocmOnly},
    {"VLLM_USE_V1", "VLLM_USE_V1=0 runs the V0 engine; gpumem models the V1 engine",
     "chooses the V0 or V1 engine (vllm envs.py)", "1"},
    {"VLLM_USE_DEEP_GEMM", "DeepGEMM's kernels and their workspaces are not modelled",
     "uses DeepGEMM for FP8 GEMMs (vllm envs.py)", "0"},
    {"VLLM_FUSED_MOE_CHUNK_SIZE",
     "the fused-MoE chunk sets the MoE activation peak; gpumem models the default 65,536",
     "tokens per fused-MoE chunk (vllm envs.py)"},
    {"VLLM_PP_LAYER_PARTITION",
     "an uneven split of the layers over pipeline stages; gpumem models vLLM's even split",
     "layers per pipeline stage (vllm envs.py, distributed/utils.py get_pp_indices)"},
    {"VLLM_MLA_DISABLE", "MLA stored as full K and V is not modelled",
     "stores an MLA model's cache as full K and V (vllm envs.py)", "0"},
    // vllm envs.py (every release gpumem models): VLLM_SKIP_P2P_CHECK defaults to "1", so vLLM
    // trusts the driver's P2P report, as gpumem's custom all-reduce model does; "0" runs vLLM's
    // own P2P test (custom_all_reduce_utils.py gpu_p2p_access_check) instead.
    {"VLLM_SKIP_P2P_CHECK",
     "vLLM's own P2P test instead of the driver's report decides whether custom all-reduce "
     "runs; not modelled",
     "trusts the driver's P2P report, vLLM's default (vllm envs.py)", "1"},
};

constexpr std::string_view kOwnPrefixes[] = {"VLLM_"};
// vllm envs.py VLLM_ROCM_*: AMD's AITER kernels and ROCm paddings, read on ROCm only.
constexpr std::string_view kRocmPrefixes[] = {"VLLM_ROCM_"};

}  // namespace

Environment read_environment(const ScenarioEngine& engine, Diagnostics& diags) {
  Environment env;
  for (const EnvVar& v : engine.env) {
    const EnvValueReader read(v, diags);
    if (v.name == "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS") {
      read.as_bool(env.estimate_cudagraphs);
    } else if (v.name == "VLLM_USE_V2_MODEL_RUNNER") {
      read.as_bool(env.use_v2_model_runner);
      env.use_v2_model_runner_loc = v.value_loc;
    } else if (v.name == "VLLM_ALLREDUCE_USE_SYMM_MEM") {
      read.as_bool(env.allreduce_use_symm_mem);
    } else if (v.name == "VLLM_ATTENTION_BACKEND") {
      env.attention_backend = v.value;
      env.attention_backend_loc = v.value_loc;
    } else if (v.name == "VLLM_ALLOW_LONG_MAX_MODEL_LEN") {
      std::optional<bool> b;
      read.as_bool(b);
      env.allow_long_max_model_len = b.value_or(false);
    } else if (!read_nccl_variable(v, env.nccl, diags) &&
               !read_allocator_variable(v, env.allocator, diags)) {
      check_unread_variable(v,
                            {"vLLM", modelled_variables(), kRules, kOwnPrefixes, kRocmPrefixes,
                             newest_environment_rules()},
                            diags);
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
    std::vector<std::string_view> names = {
        "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "VLLM_USE_V2_MODEL_RUNNER",
        "VLLM_ALLREDUCE_USE_SYMM_MEM", "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "VLLM_ATTENTION_BACKEND"};
    for (std::string_view n : nccl_variables()) names.push_back(n);
    for (std::string_view n : allocator_variables()) names.push_back(n);
    return names;
  }();
  return kNames;
}

}  // namespace gpumem::vllm
