#include "weights/decoder_norms.h"

namespace gpumem {

DecoderNorms decoder_norms(const Architecture& a) {
  // sglang and vllm commandr.py CohereDecoderLayer (HF's likewise): input_layernorm alone.
  if (a.parallel_block) return {{".input_layernorm"}, {}};
  // sglang olmo2.py Olmo2DecoderLayer, exaone4.py Exaone4DecoderLayer: no input norm; one
  // after attention, one after the MLP.
  if (a.norms_after_sublayers) {
    return {{".post_attention_layernorm", ".post_feedforward_layernorm"}, {}};
  }
  DecoderNorms n{{".input_layernorm", ".post_attention_layernorm"}, {}};
  if (a.sandwich_norms) {
    // sglang glm4.py Glm4DecoderLayer names them post_self_attn_layernorm and
    // post_mlp_layernorm; gemma2.py/gemma3_causal.py pre_/post_feedforward_layernorm.
    if (a.family == ArchitectureFamily::kGlm4) {
      n.sandwich = {".post_self_attn_layernorm", ".post_mlp_layernorm"};
    } else {
      n.sandwich = {".pre_feedforward_layernorm", ".post_feedforward_layernorm"};
    }
  }
  return n;
}

}  // namespace gpumem
