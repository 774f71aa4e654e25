// Online FP8: `--quantization fp8` on a checkpoint in the model dtype. Both engines then load
// every linear in the model dtype and quantize it to float8 with float32 scales (per tensor in
// vLLM, per output row in SGLang under CUTLASS FP8); embeddings, the head and norms stay as
// they are and the KV cache keeps its dtype. What gpumem models of it is decided here, once
// for both engines; the bytes and their timing are weights/linear_weights.cc's.
#ifndef GPUMEM_ENGINE_ONLINE_FP8_H_
#define GPUMEM_ENGINE_ONLINE_FP8_H_

#include <string>
#include <string_view>

#include "catalog/architecture.h"
#include "catalog/gpu_catalog.h"

namespace gpumem {

// Turns `model` (unquantized) into its online-FP8 form and returns "", or returns why gpumem
// does not model it: experts (each engine's online FP8 MoE method keeps both copies while it
// quantizes) and GPUs without FP8 tensor cores (the Marlin repack of the result).
std::string apply_online_fp8(Architecture& model, const GpuSpec& gpu, std::string_view engine);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ONLINE_FP8_H_
