#include "catalog/hf_phimoe.h"

#include <string>

namespace gpumem {

void parse_phimoe(const ConfigMap& text, Architecture& a) {
  // sglang and vllm phimoe.py PhiMoE.__init__: FusedMoE(num_local_experts, top_k
  // num_experts_per_tok, intermediate_size) behind a ReplicatedLinear gate without quantization.
  a.moe.num_experts = text.positive("num_local_experts", 16);
  a.moe.experts_per_token = text.positive("num_experts_per_tok", 2);
  a.moe.moe_intermediate_size = a.intermediate_size;
  // sglang phimoe.py PhiMoEAttention: bias=attention_bias on qkv_proj and o_proj; vllm phimoe.py:
  // bias=True hard-coded. transformers PhimoeConfig defaults attention_bias to false.
  if (!a.attention_bias) {
    text.error("attention_bias",
               "a Phi-3.5-MoE config without 'attention_bias' true is not modelled: SGLang's "
               "phimoe.py then builds q/k/v and o_proj without biases, vLLM's with them");
  }
  a.qkv_bias = true;
  a.o_proj_bias = true;
  // sglang phimoe.py PhiMoEForCausalLM: ParallelLMHead(bias=True), tied only when the config
  // says so; vllm phimoe.py: ParallelLMHead(bias=True) and no tying at all. Both ignore
  // lm_head_bias.
  a.lm_head_bias = true;
  if (a.tie_word_embeddings) {
    text.error("tie_word_embeddings",
               "'tie_word_embeddings' true is not modelled for Phi-3.5-MoE: SGLang's phimoe.py "
               "then reuses the embedding as the head, vLLM's never does");
  }
  // sglang and vllm phimoe.py PhiMoEDecoderLayer and PhiMoEModel: nn.LayerNorm(hidden,
  // elementwise_affine=True), a weight and a bias each.
  a.layer_norm_bias = true;
  // vllm phimoe.py passes cache_config to Attention, which windows every layer by the config's
  // sliding_window; sglang phimoe.py's RadixAttention never windows. A window at least the
  // context (the published config: 131072) changes no byte.
  if (text.is_null("sliding_window")) return;
  const std::optional<std::int64_t> window = text.integer("sliding_window");
  if (window && *window < a.max_position_embeddings) {
    text.error("sliding_window", "'sliding_window' " + std::to_string(*window) +
                                     " below 'max_position_embeddings' is not modelled for "
                                     "Phi-3.5-MoE: vLLM's phimoe.py windows every layer, "
                                     "SGLang's none");
  }
}

}  // namespace gpumem
