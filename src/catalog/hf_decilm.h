// NVIDIA's nemotron-nas models from a Hugging Face config (DeciLMForCausalLM: Llama-3.3-
// Nemotron-Super-49B, Llama-3.1-Nemotron-Ultra-253B): a Llama whose block_configs, one entry per
// layer, make each layer's attention and each layer's MLP either a no-op or a block of its own
// shape (the attention's KV heads from n_heads_in_group, the MLP's width from ffn_mult), as
// both engines' nemotron_nas.py build them.
#ifndef GPUMEM_CATALOG_HF_DECILM_H_
#define GPUMEM_CATALOG_HF_DECILM_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads block_configs into the layer kinds (kNone where attention is a no-op), the KV heads and
// the per-layer MLP widths. Expects hidden size, heads and layer count already read.
void parse_decilm(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_DECILM_H_
