#include "catalog/hf_linear_attention.h"

#include <string>

namespace gpumem {

void parse_linear_attention(const ConfigMap& text, Architecture& a) {
  LinearAttentionConfig& l = a.linear;
  // transformers models/qwen3_next/configuration_qwen3_next.py Qwen3NextConfig.__init__: the
  // published configs give every key; defaults are not relied upon.
  // Each is bounded so that the state's and the projections' byte counts stay far inside 64
  // bits (real configs: tens of heads of 128 or 256, a kernel of 4).
  constexpr std::int64_t kMaxLinearDimension = 1024;
  const auto bounded = [&](std::string_view key) {
    const std::int64_t v = text.positive(key);
    if (v > kMaxLinearDimension) {
      text.error(key, "'" + std::string(key) + "' " + std::to_string(v) +
                          " is more than gpumem reads for a linear-attention dimension (1024)");
      return std::int64_t{0};
    }
    return v;
  };
  l.num_key_heads = bounded("linear_num_key_heads");
  l.num_value_heads = bounded("linear_num_value_heads");
  l.key_head_dim = bounded("linear_key_head_dim");
  l.value_head_dim = bounded("linear_value_head_dim");
  l.conv_kernel = bounded("linear_conv_kernel_dim");
  if (l.num_key_heads > 0 && l.num_value_heads % l.num_key_heads != 0) {
    // sglang qwen3_next.py Qwen3GatedDeltaNet.fix_query_key_value_ordering groups value heads
    // by key head (num_v_heads // num_k_heads per group)
    text.error("linear_num_value_heads", "'linear_num_value_heads' " +
                                             std::to_string(l.num_value_heads) +
                                             " is not a multiple of 'linear_num_key_heads' " +
                                             std::to_string(l.num_key_heads));
  }
  if (std::optional<std::string> d = text.string("mamba_ssm_dtype")) {
    l.ssm_dtype = parse_model_dtype(*d);
    if (!l.ssm_dtype) {
      text.error("mamba_ssm_dtype", "unknown dtype '" + *d +
                                        "' in 'mamba_ssm_dtype'; expected bfloat16, float16 or "
                                        "float32");
    }
  }
  if (text.has("layer_types") || a.num_hidden_layers <= 0) return;
  // transformers Qwen3NextConfig.__init__ (layer_types None) and sglang configs/qwen3_next.py
  // layers_block_type: layer i attends in full when (i + 1) % full_attention_interval == 0.
  const std::int64_t interval = text.positive("full_attention_interval", 4);
  if (interval <= 0) return;
  for (std::int64_t i = 0; i < a.num_hidden_layers; ++i) {
    a.layer_types[static_cast<size_t>(i)] =
        (i + 1) % interval == 0 ? LayerAttention::kFull : LayerAttention::kLinear;
  }
}

}  // namespace gpumem
