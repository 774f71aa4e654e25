// The linear-attention layers of a hybrid Hugging Face config (Qwen3-Next and Qwen3.5's Gated
// DeltaNet, NemotronH's Mamba-2, Kimi Linear's Kimi Delta Attention): which layers are linear and
// their shape, read into an Architecture's `layer_types` and `linear`. The engines keep a
// fixed-size recurrent state per request for these layers instead of a KV cache, so the state's
// shape is read here once for both.
#ifndef GPUMEM_CATALOG_HF_LINEAR_ATTENTION_H_
#define GPUMEM_CATALOG_HF_LINEAR_ATTENTION_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads linear_num_key_heads, linear_num_value_heads, linear_key_head_dim,
// linear_value_head_dim and linear_conv_kernel_dim, and, when the config gives no
// `layer_types`, marks every layer but each full_attention_interval-th as linear. Missing or
// impossible values are errors at their keys.
void parse_linear_attention(const ConfigMap& text, Architecture& a);

// NemotronH: hybrid_override_pattern gives each layer's one module (M: Mamba-2, *: attention,
// -: MLP, E: MoE), mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups, conv_kernel and
// use_conv_bias the Mamba-2 mixer, and n_routed_experts, num_experts_per_tok,
// moe_intermediate_size, n_shared_experts and moe_shared_expert_intermediate_size the MoE layers.
void parse_nemotron_h(const ConfigMap& text, Architecture& a);

// Kimi Linear (KimiLinearConfig): linear_attn_config's num_heads, head_dim and
// short_conv_kernel_size the Kimi Delta Attention layers (read in Gated DeltaNet terms: as many
// key as value heads, both of head_dim), kda_layers which layers they are (1-indexed, as
// KimiLinearConfig.is_kda_layer reads them); every other layer is MLA without RoPE, which vLLM's
// KimiMLAAttention asserts (mla_use_nope true, no q_lora_rank).
void parse_kimi_linear(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_LINEAR_ATTENTION_H_
