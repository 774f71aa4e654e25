// What SGLang derives from the model, the GPU and the flags before it allocates anything:
// context length, served and KV-cache dtypes, attention backend and page size, and the KV
// geometry of one pipeline stage.
#ifndef GPUMEM_ENGINE_SGLANG_MODEL_FACTS_H_
#define GPUMEM_ENGINE_SGLANG_MODEL_FACTS_H_

#include <cstdint>
#include <string>

#include "catalog/architecture.h"
#include "catalog/gpu_catalog.h"
#include "core/diagnostics.h"
#include "engine/sglang/flags.h"
#include "engine/sglang/kv_sizing.h"
#include "engine/sglang/server_defaults.h"
#include "weights/parallel_layout.h"

namespace gpumem::sglang {

// sglang v0.5.9 utils/hf_transformers_utils.py get_context_length: max_position_embeddings
// times the rope factor, unless the scaling names original_max_position_embeddings or is
// llama3 (then the factor is not applied).
std::int64_t derived_context_length(const Architecture& a);

struct ModelFacts {
  std::int64_t context_len = 0;
  bool use_mla = false;
  bool hybrid_swa = false;
  std::string attention_backend;
  std::int64_t page_size = 1;
  std::string kv_cache_dtype;  // torch name, for "Using KV cache dtype: …"
  std::int64_t kv_element_size = 2;
  bool kv_fp4 = false;
  // DeepSeek DSA (an MLA model with a sparse-attention indexer): the nsa backend's prefill and
  // decode kernels, and whether its FP8 latent keeps DeepSeek's 656-byte layout (512 FP8
  // values, 4 float32 scales, the rope part in bfloat16) rather than 576 plain FP8 bytes.
  bool sparse_attention = false;
  std::string nsa_prefill_backend;
  std::string nsa_decode_backend;
  bool nsa_fp8_latent_layout = false;
  friend bool operator==(const ModelFacts&, const ModelFacts&) = default;
};

// Resolves the facts; a user --context-length above the derived one is SGLang's ValueError,
// reported at the flag, unless `allow_longer_context`
// (SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN) lets SGLang take it.
ModelFacts resolve_model_facts(const Architecture& a, const ServerFlags& flags,
                               const SpeculativeSettings& spec, const GpuSpec& gpu,
                               bool allow_longer_context, Diagnostics& diags);

// The KV layout of the layers `stage` owns, with KV heads split over the attention TP.
KvGeometry kv_geometry(const Architecture& a, const ModelFacts& facts, int attention_tp,
                       LayerRange stage);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_MODEL_FACTS_H_
