#include "catalog/hf_gemma4.h"

#include <string>

namespace gpumem {

void parse_gemma4(const ConfigMap& top, const ConfigMap& text, Architecture& a) {
  // transformers models/gemma4/configuration_gemma4.py Gemma4TextConfig: global_head_dim 512,
  // num_global_key_value_heads None (the others'), attention_k_eq_v False; vllm gemma4.py
  // Gemma4DecoderLayer takes the global KV heads only where k_eq_v.
  a.global_head_dim = text.positive("global_head_dim", 512);
  a.attention_k_eq_v = text.boolean("attention_k_eq_v").value_or(false);
  a.num_global_key_value_heads =
      a.attention_k_eq_v ? text.positive("num_global_key_value_heads", a.num_key_value_heads)
                         : a.num_key_value_heads;
  if (a.num_global_key_value_heads > 0 &&
      a.num_attention_heads % a.num_global_key_value_heads != 0) {
    text.error("num_global_key_value_heads",
               "'num_attention_heads' " + std::to_string(a.num_attention_heads) +
                   " is not a multiple of 'num_global_key_value_heads' " +
                   std::to_string(a.num_global_key_value_heads));
  }
  // Gemma4TextConfig.__post_init__: the last layer attends in full.
  if (!a.layer_types.empty()) a.layer_types.back() = LayerAttention::kFull;
  // Gemma4TextConfig: hidden_size_per_layer_input defaults to 256 (the E2B/E4B models' tables).
  if (text.integer("hidden_size_per_layer_input").value_or(256) != 0) {
    text.error(
        text.has("hidden_size_per_layer_input") ? "hidden_size_per_layer_input" : "hidden_size",
        "Gemma 4's per-layer input embeddings ('hidden_size_per_layer_input', the "
        "E2B/E4B models) are not modelled");
  }
  if (text.integer("num_kv_shared_layers").value_or(0) != 0) {
    text.error("num_kv_shared_layers",
               "Gemma 4's layers that reuse an earlier layer's KV cache ('num_kv_shared_layers') "
               "are not modelled");
  }
  if (top.has("audio_config")) {
    top.error("audio_config", "Gemma 4's audio tower ('audio_config') is not modelled");
  }
  if (!text.boolean("enable_moe_block").value_or(false)) return;
  // vllm gemma4.py Gemma4MoE: num_experts of moe_intermediate_size (else
  // expert_intermediate_size), top_k_experts a token, no shared expert.
  MoeConfig& m = a.moe;
  m.num_experts = text.positive("num_experts");
  m.experts_per_token = text.positive("top_k_experts");
  m.moe_intermediate_size = text.has("moe_intermediate_size")
                                ? text.positive("moe_intermediate_size")
                                : text.positive("expert_intermediate_size");
  a.moe_beside_mlp = true;
}

}  // namespace gpumem
