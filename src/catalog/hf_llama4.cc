#include "catalog/hf_llama4.h"

#include <string>
#include <vector>

namespace gpumem {
namespace {

// sglang llama4.py Llama4Attention (use_rope = (layer_id + 1) % 4 != 0) and
// get_hybrid_layer_ids hard-code it; transformers Llama4TextConfig.no_rope_layer_interval's
// default.
constexpr std::int64_t kNoRopeInterval = 4;

std::string str(std::int64_t v) { return std::to_string(v); }

// interleave_moe_layer_step: sglang llama4.py Llama4DecoderLayer._is_moe_layer and vllm
// llama4.py Llama4DecoderLayer.__init__ both take (layer + 1) % step == 0 for step > 0 and
// ignore moe_layers; for step 0 SGLang makes every layer MoE, vLLM none.
void parse_moe_layers(const ConfigMap& text, Architecture& a) {
  MoeConfig& m = a.moe;
  m.num_experts = text.positive("num_local_experts", 16);
  m.experts_per_token = text.positive("num_experts_per_tok", 1);
  const std::optional<std::int64_t> step = text.integer("interleave_moe_layer_step");
  if (step && *step == 0) {
    text.error("interleave_moe_layer_step",
               "'interleave_moe_layer_step' 0 is not modelled: SGLang's llama4.py then makes every "
               "layer MoE, vLLM's none");
    return;
  }
  m.decoder_sparse_step = text.positive("interleave_moe_layer_step", 1);
  const std::optional<std::vector<std::int64_t>> listed = text.integers("moe_layers");
  if (!listed) return;
  std::vector<std::int64_t> by_step;
  for (std::int64_t l = 0; l < a.num_hidden_layers; ++l) {
    if (a.is_moe_layer(l)) by_step.push_back(l);
  }
  if (*listed != by_step) {
    text.error("moe_layers", "'moe_layers' differs from what 'interleave_moe_layer_step' " +
                                 str(m.decoder_sparse_step) +
                                 " gives; neither SGLang's nor vLLM's llama4.py reads moe_layers");
  }
}

// no_rope_layers (1: RoPE, 0: NoPE; transformers' default (layer + 1) % 4 != 0): vLLM reads the
// list, SGLang the interval, so a list that departs from the interval is refused.
void parse_rope_layers(const ConfigMap& text, Architecture& a) {
  a.no_rope_interval = kNoRopeInterval;
  if (text.integer("no_rope_layer_interval").value_or(kNoRopeInterval) != kNoRopeInterval) {
    text.error("no_rope_layer_interval",
               "'no_rope_layer_interval' other than 4 is not modelled: SGLang's llama4.py "
               "hard-codes every fourth layer as NoPE");
    return;
  }
  const std::optional<std::vector<std::int64_t>> listed = text.integers("no_rope_layers");
  if (!listed) return;
  std::vector<std::int64_t> by_interval;
  for (std::int64_t l = 0; l < a.num_hidden_layers; ++l) by_interval.push_back(a.uses_rope(l));
  if (*listed != by_interval) {
    text.error("no_rope_layers",
               "'no_rope_layers' other than every fourth layer NoPE is not modelled: vLLM's "
               "llama4.py reads the list, SGLang's hard-codes the interval");
  }
}

}  // namespace

void parse_llama4(const ConfigMap& text, Architecture& a) {
  // transformers Llama4TextConfig: intermediate_size is an expert's (and the shared expert's)
  // width, intermediate_size_mlp the dense layers'.
  a.moe.moe_intermediate_size = a.intermediate_size;
  a.moe.num_shared_experts = 1;
  a.moe.shared_expert_intermediate_size = a.intermediate_size;
  a.intermediate_size = text.positive("intermediate_size_mlp", 16384);
  parse_moe_layers(text, a);
  parse_rope_layers(text, a);
  // sglang llama4.py Llama4Attention: qk_norm only where use_qk_norm and the layer uses RoPE,
  // an RMSNorm the checkpoint has no weight for; vllm llama4.py: has_weight=False.
  a.weightless_qk_norm = text.boolean("use_qk_norm").value_or(true);
  // attention_chunk_size (transformers default 8192); null: every layer attends globally (vllm
  // llama4.py builds ChunkedLocalAttention only when it is set).
  if (!text.is_null("attention_chunk_size")) {
    a.sliding_window = text.positive("attention_chunk_size", 8192);
    a.chunked_attention = true;
    for (std::int64_t l = 0; l < a.num_hidden_layers; ++l) {
      if (a.uses_rope(l)) a.layer_types[static_cast<size_t>(l)] = LayerAttention::kSliding;
    }
  }
}

}  // namespace gpumem
