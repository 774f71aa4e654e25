#include "weights/rope_cache.h"

#include <cmath>

namespace gpumem {
namespace {

// torch.arange(n) over a float end makes ceil(n) positions.
std::int64_t scaled_rows(std::int64_t positions, double factor) {
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(positions) * factor));
}

}  // namespace

Result<std::int64_t> rope_cache_rows(const RopeSpec& spec) {
  const RopeScaling& s = spec.scaling;
  switch (s.type) {
    case RopeType::kNone:
    case RopeType::kDefault:
    case RopeType::kLlama3:
      // RotaryEmbedding._compute_cos_sin_cache; Llama3RotaryEmbedding only rescales inv_freq
      return spec.max_position;
    case RopeType::kLinear:
      // LinearScalingRotaryEmbedding._compute_cos_sin_cache: max_position x factor
    case RopeType::kDynamic:
      // DynamicNTKScalingRotaryEmbedding._compute_cos_sin_cache: max_position x factor
      return scaled_rows(spec.max_position, s.factor);
    case RopeType::kYarn: {
      // get_rope passes original_max_position_embeddings (else max_position) to
      // YaRNScalingRotaryEmbedding / DeepseekScalingRotaryEmbedding, which precompute
      // that x factor positions.
      const std::int64_t original = s.original_max_position_embeddings > 0
                                        ? s.original_max_position_embeddings
                                        : spec.max_position;
      return scaled_rows(original, s.factor);
    }
    case RopeType::kLongRope:
      // Phi3LongRoPEScaledRotaryEmbedding keeps three buffers, not one cos_sin_cache
      // (layer_weights.cc RopeCaches::add builds them).
      return invalid_input("a longrope scaling has no single cos_sin_cache");
  }
  return internal_error("unknown rope scaling type");
}

RopeSpec rope_spec(const Architecture& a, std::int64_t max_position) {
  RopeSpec spec;
  spec.head_size = a.attention == AttentionKind::kMla ? a.mla.qk_rope_head_dim : a.head_dim;
  spec.rotary_dim = a.rotary_dim;
  spec.max_position = max_position;
  spec.base = a.rope_theta;
  // sglang v0.5.9 deepseek_v2.py DeepseekV2AttentionMLA: is_neox_style=False
  spec.neox_style = a.attention != AttentionKind::kMla;
  spec.scaling = a.rope_scaling;
  return spec;
}

}  // namespace gpumem
