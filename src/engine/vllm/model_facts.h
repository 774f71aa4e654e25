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

// Whether vLLM serves `a` on its Transformers backend (the transformers model's own modules,
// not vLLM's model file): vllm registry.py maps SmolLM3 there (PR #22665).
bool on_transformers_backend(const Architecture& a);

struct ModelFacts {
  std::int64_t max_model_len = 0;
  DType served_dtype = DType::kBFloat16;
  std::string served_dtype_name;  // "torch.bfloat16"
  std::int64_t kv_dtype_bytes = 2;
  std::string kv_cache_dtype;  // as vLLM resolves it: "auto" -> the served dtype
  bool use_mla = false;
  std::string attention_backend;  // vLLM's backend name, e.g. FLASH_ATTN, FLASHMLA
  std::int64_t block_size = 16;
  // Hybrid linear-attention models (0 otherwise): one Gated DeltaNet layer's state for one
  // request (conv window + temporal state), the page it is padded to (the attention page of
  // block_size tokens) and the pages a request holds.
  std::int64_t mamba_state_bytes = 0;
  std::int64_t mamba_page_bytes = 0;
  std::int64_t mamba_pages_per_request = 0;
  // DeepSeek Sparse Attention (0 without it): one layer's latent cache bytes per token and its
  // indexer key cache bytes per token, which join the MLA layers' one KV-cache group.
  std::int64_t dsa_latent_token_bytes = 0;
  std::int64_t dsa_indexer_token_bytes = 0;
};

// Resolves the facts; a --max-model-len above the derived one is vLLM's ValueError, reported
// at the flag unless `allow_long_max_model_len` (VLLM_ALLOW_LONG_MAX_MODEL_LEN). For a hybrid
// linear-attention model the attention block size is raised so that one attention page holds a
// Gated DeltaNet state, which is padded to it (tensor parallel size `tp`).
ModelFacts resolve_model_facts(const Architecture& a, const EngineFlags& flags, const GpuSpec& gpu,
                               const VersionRules& rules, int tp, bool allow_long_max_model_len,
                               Diagnostics& diags);

// The KV-cache spec of every attention layer in `layers` on one rank of a TP group of `tp`.
std::vector<KvLayerSpec> kv_layer_specs(const Architecture& a, const ModelFacts& facts, int tp,
                                        LayerRange layers);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_MODEL_FACTS_H_
