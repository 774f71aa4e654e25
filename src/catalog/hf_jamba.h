// AI21 Jamba from a Hugging Face config (JambaForCausalLM, model_type jamba): which layers are
// Mamba-1 and which attend (every attn_layer_period-th layer from attn_layer_offset), the
// Mamba-1 mixer's shape (inner width mamba_expand x hidden, state mamba_d_state, kernel
// mamba_d_conv, time-step rank mamba_dt_rank), and which layers hold experts (every
// expert_layer_period-th from expert_layer_offset; the others a dense gated MLP of the same
// intermediate_size), read into an Architecture with transformers' JambaConfig defaults, as
// vLLM reads it.
#ifndef GPUMEM_CATALOG_HF_JAMBA_H_
#define GPUMEM_CATALOG_HF_JAMBA_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads the period and offset keys, the mamba_* keys, num_experts and num_experts_per_tok.
// Expects hidden size, layer count and intermediate size already read.
void parse_jamba(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_JAMBA_H_
