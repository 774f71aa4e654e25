#include "catalog/hf_grok.h"

#include <string>

namespace gpumem {

void parse_grok(const ConfigMap& text, Architecture& a) {
  MoeConfig& m = a.moe;
  // Grok1MoE: a float32 ReplicatedLinear router and FusedMoE over num_local_experts (read with
  // no fallback) of moe_intermediate_size, else intermediate_size; with residual_moe,
  // Grok1DecoderLayer adds a dense Grok1MLP of intermediate_size beside it (a TP-split MLP,
  // held as a shared expert is).
  m.num_experts = text.positive("num_local_experts");
  m.experts_per_token = text.positive("num_experts_per_tok");
  m.moe_intermediate_size = text.positive("moe_intermediate_size", a.intermediate_size);
  m.router_float32 = true;
  if (text.boolean("residual_moe").value_or(false)) {
    m.shared_expert_intermediate_size = a.intermediate_size;
  }
  // Grok1ForCausalLM builds a separate ParallelLMHead whatever tie_word_embeddings says.
  a.tie_word_embeddings = false;
  // Grok1Attention: with rope_type set, each layer builds its own ScalingRotaryEmbedding (not
  // get_rope's shared cache) over original_max_position_embeddings x scaling_factor positions.
  if (!text.string("rope_type")) return;
  const double factor = text.number("scaling_factor").value_or(1.0);
  const std::int64_t original = text.positive("original_max_position_embeddings");
  if (factor < 1.0 || factor > 1024.0) {
    text.error("scaling_factor", "'scaling_factor' must be in [1, 1024]");
    return;
  }
  a.per_layer_rope_rows = static_cast<std::int64_t>(static_cast<double>(original) * factor);
}

}  // namespace gpumem
