// Online quantization: `--quantization fp8` (both engines) or `--quantization bitsandbytes`
// (vLLM) on a checkpoint in the model dtype. The engine loads every linear in the model dtype
// and quantizes it: to float8 with float32 scales (per tensor in vLLM, per output row in
// SGLang under CUTLASS FP8), or to nf4 with an absmax per 64 weights; embeddings, the head and
// norms stay as they are and the KV cache keeps its dtype. What gpumem models of it is decided
// here; the bytes and their timing are weights/linear_weights.cc's.
#ifndef GPUMEM_ENGINE_ONLINE_QUANTIZATION_H_
#define GPUMEM_ENGINE_ONLINE_QUANTIZATION_H_

#include <string>
#include <string_view>

#include "catalog/architecture.h"
#include "catalog/gpu_catalog.h"

namespace gpumem {

// Turns `model` (unquantized) into its online-FP8 form and returns "", or returns why gpumem
// does not model it: GPUs without FP8 tensor cores (the Marlin repack of the result).
std::string apply_online_fp8(Architecture& model, const GpuSpec& gpu, std::string_view engine);

// The same for vLLM's in-flight bitsandbytes (model_loader/bitsandbytes_loader.py
// _unquantized_generator: nf4, blocksize 64, double quant, on the GPU one checkpoint module at
// a time); experts are not modelled.
std::string apply_online_bitsandbytes(Architecture& model);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ONLINE_QUANTIZATION_H_
