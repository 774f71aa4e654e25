// What vLLM derives from the model, the GPU and the flags before it allocates anything: the
// maximum model length, the served and KV-cache dtypes, the attention backend and its block
// size, and the KV-cache spec of every attention layer a rank holds.
#ifndef GPUMEM_ENGINE_VLLM_MODEL_FACTS_H_
#define GPUMEM_ENGINE_VLLM_MODEL_FACTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "catalog/dtype.h"
#include "catalog/gpu_catalog.h"
#include "core/diagnostics.h"
#include "engine/vllm/flags.h"
#include "engine/vllm/kv_sizing.h"
#include "weights/parallel_layout.h"

namespace gpumem::vllm {

// vllm config/model.py _get_and_verify_max_len: max_position_embeddings, times the RoPE
// scaling factor unless the type is llama3 (yarn scales original_max_position_embeddings
// when the config gives it).
std::int64_t derived_max_model_len(const Architecture& a);

struct ModelFacts {
  std::int64_t max_model_len = 0;
  DType served_dtype = DType::kBFloat16;
  std::string served_dtype_name;  // "torch.bfloat16"
  std::int64_t kv_dtype_bytes = 2;
  std::string kv_cache_dtype;  // as vLLM resolves it: "auto" -> the served dtype
  bool use_mla = false;
  std::string attention_backend;  // vLLM's backend name, e.g. FLASH_ATTN, FLASHMLA
  std::int64_t block_size = 16;
};

// Resolves the facts; a --max-model-len above the derived one is vLLM's ValueError, reported
// at the flag.
ModelFacts resolve_model_facts(const Architecture& a, const EngineFlags& flags, const GpuSpec& gpu,
                               Diagnostics& diags);

// The KV-cache spec of every attention layer in `layers` on one rank of a TP group of `tp`.
std::vector<KvLayerSpec> kv_layer_specs(const Architecture& a, const ModelFacts& facts, int tp,
                                        LayerRange layers);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_MODEL_FACTS_H_
