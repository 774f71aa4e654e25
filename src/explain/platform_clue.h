// Whether a log line shows the start-up ran on an accelerator other than an NVIDIA GPU: AMD
// ROCm, Moore Threads MUSA, Huawei Ascend (vllm-ascend), Intel XPU or Gaudi. gpumem's rules and
// constants are CUDA's, so such a log is not replayed on a GPU gpumem would have to guess (an
// MI300X's total would otherwise pass for an unlisted NVIDIA GPU); the user may still name a
// GPU with --gpu to replay it as if on that one.
//
// The clues are names only those platforms print: a device or kernel library's name, the
// platform vLLM says it detected, a wheel's "+rocm" tag. Words an NVIDIA machine prints too
// are not clues: collect_env's "ROCM used to build PyTorch: N/A" and "Is XPU available:
// False" are in CUDA users' posts.
#ifndef GPUMEM_EXPLAIN_PLATFORM_CLUE_H_
#define GPUMEM_EXPLAIN_PLATFORM_CLUE_H_

#include <optional>
#include <string>
#include <string_view>

namespace gpumem {

// The platform `text` names ("AMD ROCm", "Huawei Ascend NPU", ...), if it names one.
std::optional<std::string> non_cuda_platform(std::string_view text);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_PLATFORM_CLUE_H_
