// The RoPE cos/sin caches an engine builds with a model.
//
// SGLang's get_rope keeps one cache per distinct (head size, rotary dim, max position, base,
// neox style, rope_scaling, dtype) for the whole process, so a model holds one cache per
// distinct rotary configuration of its layers (Gemma 3: one for sliding, one for global
// layers), and a draft model whose configuration equals the target's reuses the target's.
// Each cache is [rows, rotary_dim]: cos and sin halves side by side, rows = positions the
// scaling type precomputes.
#ifndef GPUMEM_WEIGHTS_ROPE_CACHE_H_
#define GPUMEM_WEIGHTS_ROPE_CACHE_H_

#include <cstdint>

#include "catalog/architecture.h"
#include "core/status.h"

namespace gpumem {

struct RopeSpec {
  std::int64_t head_size = 0;
  std::int64_t rotary_dim = 0;
  std::int64_t max_position = 0;
  double base = 10000.0;
  bool neox_style = true;
  RopeScaling scaling;

  friend bool operator==(const RopeSpec&, const RopeSpec&) = default;
};

// Rows of the cos_sin_cache a spec builds (sglang v0.5.9 rotary_embedding.py):
//   none / default / llama3: max_position;
//   linear, dynamic: max_position x factor;
//   yarn (DeepSeek's deepseek_yarn too): original_max_position_embeddings x factor;
//   longrope: none (three caches: RopeCaches in layer_weights.h).
Result<std::int64_t> rope_cache_rows(const RopeSpec& spec);

// The spec of a model's full-attention layers, with `max_position` positions.
RopeSpec rope_spec(const Architecture& a, std::int64_t max_position);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_ROPE_CACHE_H_
