#include "engine/environment_table.h"

#include <string>
#include <vector>

#include "core/spelling.h"
#include "engine/library_environment.h"

namespace gpumem {

namespace {

constexpr std::string_view kGpuChoice =
    "chooses which GPUs the process sees; the scenario's hardware says which kind and how many "
    "(CUDA C++ Programming Guide, CUDA Environment Variables)";
constexpr std::string_view kHubAccess =
    "where and how the checkpoint is fetched (huggingface_hub constants.py, transformers)";
constexpr std::string_view kRendezvous =
    "where the processes meet to form the process group (torch.distributed env:// "
    "initialisation); the communicators it creates are the same";
constexpr std::string_view kNcclLogging =
    "what NCCL logs and where (NCCL docs, Environment Variables)";
constexpr std::string_view kNcclNetwork =
    "which network interface or HCA NCCL's network transport uses (NCCL docs, Environment "
    "Variables); the buffers it allocates are sized by NCCL_BUFFSIZE and the channels";

// Read by every engine process: CUDA, PyTorch, NCCL, the hub, the launcher.
constexpr EnvRule kSharedRules[] = {
    {"CUDA_VISIBLE_DEVICES", {}, kGpuChoice},
    {"NVIDIA_VISIBLE_DEVICES", {}, kGpuChoice},
    {"CUDA_DEVICE_ORDER", {}, kGpuChoice},
    {"CUDA_LAUNCH_BLOCKING", {}, "makes kernel launches synchronous (CUDA Environment Variables)"},
    {"CUDA_HOME", {}, "where the CUDA toolkit is installed, for JIT builds"},
    {"CUDA_MODULE_LOADING",
     "CUDA_MODULE_LOADING=EAGER loads every kernel module when the context is created (1,259 "
     "MiB instead of 527 MiB for a PyTorch process on an H200), every cuBLAS kernel at the "
     "first GEMM (494 MiB instead of 66) and NCCL's at its first communicator (686 MiB instead "
     "of 614; reports/probe/h200x1/torch-facts/torch_facts_eager.json); gpumem models lazy "
     "loading, CUDA 12.2's default",
     "how CUDA loads kernel modules", "LAZY"},
    {"PYTORCH_NO_CUDA_MEMORY_CACHING",
     "without caching every tensor is its own cudaMalloc; gpumem models the caching allocator",
     "turns PyTorch's caching allocator off (pytorch c10/cuda/CUDACachingAllocator.cpp)"},
    {"HF_TOKEN", {}, kHubAccess},
    {"HUGGING_FACE_HUB_TOKEN", {}, kHubAccess},
    {"HF_HOME", {}, kHubAccess},
    {"HF_HUB_CACHE", {}, kHubAccess},
    {"HF_HUB_OFFLINE", {}, kHubAccess},
    {"HF_HUB_ENABLE_HF_TRANSFER", {}, kHubAccess},
    {"HF_ENDPOINT", {}, kHubAccess},
    {"TRANSFORMERS_OFFLINE", {}, kHubAccess},
    {"TORCH_CUDA_ARCH_LIST", {}, "the GPU architectures extensions are compiled for"},
    {"TORCH_NCCL_ASYNC_ERROR_HANDLING",
     {},
     "how a failed collective ends the process (torch ProcessGroupNCCL)"},
    {"TORCH_NCCL_BLOCKING_WAIT",
     {},
     "how a collective's timeout is detected (torch ProcessGroupNCCL)"},
    {"TORCH_DISTRIBUTED_DEBUG",
     {},
     "the process group's debug checks and logs (torch.distributed)"},
    {"NCCL_ASYNC_ERROR_HANDLING",
     {},
     "TORCH_NCCL_ASYNC_ERROR_HANDLING's older name (torch ProcessGroupNCCL)"},
    {"NCCL_DEBUG", {}, kNcclLogging},
    {"NCCL_DEBUG_SUBSYS", {}, kNcclLogging},
    {"NCCL_DEBUG_FILE", {}, kNcclLogging},
    {"NCCL_SOCKET_IFNAME", {}, kNcclNetwork},
    {"NCCL_IB_HCA", {}, kNcclNetwork},
    {"NCCL_IB_GID_INDEX", {}, kNcclNetwork},
    {"MASTER_ADDR", {}, kRendezvous},
    {"MASTER_PORT", {}, kRendezvous},
    {"RANK", {}, kRendezvous},
    {"LOCAL_RANK", {}, kRendezvous},
    {"WORLD_SIZE", {}, kRendezvous},
};

// Prefixes of the libraries an engine process loads: a variable under one of them that no
// table lists may change memory.
constexpr std::string_view kRuntimePrefixes[] = {"NCCL_",       "CUDA_",     "PYTORCH_", "TORCH_",
                                                 "CUBLAS_",     "CUBLASLT_", "CUDNN_",   "NVSHMEM_",
                                                 "FLASHINFER_", "TRITON_",   "UCX_",     "NIXL_"};

const EnvRule* find_rule(std::string_view name, std::span<const EnvRule> rules) {
  for (const EnvRule& r : rules) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

bool has_prefix(std::string_view name, std::span<const std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (name.starts_with(p)) return true;
  }
  return false;
}

}  // namespace

void check_unread_variable(const EnvVar& v, const EngineEnvironment& engine, Diagnostics& diags) {
  const EnvRule* rule = find_rule(v.name, engine.rules);
  if (rule == nullptr) rule = find_rule(v.name, engine.newest_rules);
  if (rule == nullptr) rule = find_rule(v.name, kSharedRules);
  if (rule == nullptr) rule = find_rule(v.name, library_environment_rules());
  if (rule != nullptr) {
    if (rule->not_modelled.empty() || v.value == rule->modelled_value) return;
    diags.error(v.loc, v.name + "=" + v.value + " changes start-up memory in a way gpumem does " +
                           "not model: " + std::string(rule->not_modelled) +
                           "; remove it to simulate without it");
    return;
  }
  if (has_prefix(v.name, engine.other_platform_prefixes)) return;
  if (!has_prefix(v.name, engine.own_prefixes) && !has_prefix(v.name, kRuntimePrefixes)) return;
  std::vector<std::string> known;
  for (std::string_view n : engine.modelled) known.emplace_back(n);
  for (const EnvRule& r : engine.rules) known.emplace_back(r.name);
  for (const EnvRule& r : engine.newest_rules) known.emplace_back(r.name);
  for (const EnvRule& r : kSharedRules) known.emplace_back(r.name);
  for (const EnvRule& r : library_environment_rules()) known.emplace_back(r.name);
  diags.error(v.loc, "unknown environment variable '" + v.name +
                         "': " + std::string(engine.engine_name) +
                         ", PyTorch, CUDA or NCCL may read it and gpumem cannot tell its "
                         "memory effect; remove it to simulate without it" +
                         did_you_mean(v.name, known));
}

}  // namespace gpumem
