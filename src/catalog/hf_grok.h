// Grok 2 from a Hugging Face config (Grok1ForCausalLM, xai-org/grok-2) as SGLang's grok.py
// builds it (read at 031ad4c), read into an Architecture: Mixtral-like experts (a float32
// router, FusedMoE over num_local_experts of moe_intermediate_size) beside residual_moe's dense
// MLP, four RMSNorms a layer (hf_attention_features.cc), a head never tied, and with rope_type
// set each layer's own RoPE cache beside the shared one. vLLM's Grok 2 form is not pinned to a
// release, so its plan refuses the family.
#ifndef GPUMEM_CATALOG_HF_GROK_H_
#define GPUMEM_CATALOG_HF_GROK_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads num_local_experts, num_experts_per_tok, moe_intermediate_size, residual_moe, rope_type,
// original_max_position_embeddings and scaling_factor. Expects the common keys (hidden size,
// intermediate_size, layers, head_dim) read.
void parse_grok(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_GROK_H_
