// Gemma 4's text model from a Hugging Face config (Gemma4TextConfig, under text_config for
// Gemma4ForConditionalGeneration): the full-attention layers' own head size and KV heads, the
// experts beside the dense MLP, and what gpumem refuses, read into an Architecture.
//
// Gemma 4 keeps Gemma 3's sliding and full layers, but a full layer attends with
// global_head_dim (512) and, where attention_k_eq_v, num_global_key_value_heads KV heads whose
// V is loaded from k_proj; enable_moe_block adds routed experts (no shared one) beside every
// layer's dense MLP. The small models' per-layer input embeddings (hidden_size_per_layer_input)
// and KV-shared layers (num_kv_shared_layers) are refused at their keys, as is an audio tower.
#ifndef GPUMEM_CATALOG_HF_GEMMA4_H_
#define GPUMEM_CATALOG_HF_GEMMA4_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads global_head_dim, attention_k_eq_v, num_global_key_value_heads, enable_moe_block,
// num_experts, top_k_experts and moe_intermediate_size (or expert_intermediate_size), and forces
// the last layer to full attention as Gemma4TextConfig does. `top` is the whole config (for
// audio_config), `text` its text_config. Expects heads, layers and layer types already read.
void parse_gemma4(const ConfigMap& top, const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_GEMMA4_H_
