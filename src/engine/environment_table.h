// What gpumem does with an environment variable that no engine model reads: accept it as
// having no memory effect, or refuse it by name — never ignore it silently.
//
// A launch command is pasted with its `VAR=value` prefixes, and a scenario's `env:` holds
// whatever the user's shell exported. Each engine model reads the variables it models
// (NCCL's buffer and channel settings, SGLang's all-reduce algorithm, vLLM's graph
// estimate); every other variable comes here:
//  * listed with no memory effect (CUDA_VISIBLE_DEVICES, HF_TOKEN, VLLM_LOGGING_LEVEL, …),
//    each with the source that says what it does: accepted;
//  * listed as changing memory in a way gpumem does not model (CUDA_MODULE_LOADING=EAGER,
//    PYTORCH_NO_CUDA_MEMORY_CACHING, VLLM_USE_V1=0, …), with the reason: refused, unless the value
//    is the default the engine model assumes;
//  * unlisted, with a prefix of a library the engine process loads (the engine's own,
//    NCCL_, CUDA_, PYTORCH_, TORCH_, …): refused as unknown, with a did-you-mean, since
//    gpumem cannot tell its memory effect;
//  * unlisted otherwise (FOO=1, PATH, OMP_NUM_THREADS): not read by the engine, PyTorch, CUDA
//    or NCCL for anything on the GPU, so accepted.
#ifndef GPUMEM_ENGINE_ENVIRONMENT_TABLE_H_
#define GPUMEM_ENGINE_ENVIRONMENT_TABLE_H_

#include <span>
#include <string_view>

#include "catalog/scenario.h"
#include "core/diagnostics.h"

namespace gpumem {

struct EnvRule {
  std::string_view name;
  // Empty: no memory effect, `why` says what it does. Non-empty: the memory effect gpumem
  // does not model, refused unless the value is `modelled_value`.
  std::string_view not_modelled;
  std::string_view why;
  std::string_view modelled_value = {};
};

// What one engine adds to the rules every engine shares.
struct EngineEnvironment {
  std::string_view engine_name;                    // "SGLang", "vLLM": for messages
  std::span<const std::string_view> modelled;      // read by the engine model itself
  std::span<const EnvRule> rules;                  // the engine's own variables
  std::span<const std::string_view> own_prefixes;  // "VLLM_"; "SGLANG_", "SGL_"
  // Variables read only on a platform gpumem does not model (ROCm), so of no effect on the
  // NVIDIA GPUs of the catalog: "VLLM_ROCM_".
  std::span<const std::string_view> other_platform_prefixes = {};
  // The engine's newest release's variables (its envs.py or environ.py) beyond `rules`.
  std::span<const EnvRule> newest_rules = {};
};

// Accepts or refuses `v`, a variable the engine model does not read (see above).
void check_unread_variable(const EnvVar& v, const EngineEnvironment& engine, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ENVIRONMENT_TABLE_H_
