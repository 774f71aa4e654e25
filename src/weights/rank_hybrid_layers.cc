// The Mamba, hybrid and nemotron-nas layers of a rank's weights (rank_builder.h).
#include "weights/linear_attention_weights.h"
#include "weights/linear_weights.h"
#include "weights/moe_weights.h"
#include "weights/rank_builder.h"

namespace gpumem {

// sglang nemotron_h.py NemotronHModel: each layer one module ("mixer": Mamba-2, attention
// or MLP) and one norm; vllm mamba2.py Mamba2DecoderLayer and mamba.py MambaDecoderLayer
// likewise, the mixer always a Mamba one.
Status ModelBuilder::single_module_layer(std::int64_t i) {
  const Architecture& a = ctx_.arch;
  const std::string prefix = root() + ".layers." + str(i);
  const std::string mixer = prefix + ".mixer";
  if (a.is_linear_layer(i) && a.linear.kind == LinearKind::kMamba1) {
    GPUMEM_RETURN_IF_ERROR(add_mamba1_mixer(list_, ctx_, mixer, post_load_));
  } else if (a.is_linear_layer(i)) {
    GPUMEM_RETURN_IF_ERROR(add_mamba2_mixer(list_, ctx_, mixer, post_load_));
  } else if (a.is_moe_layer(i)) {
    GPUMEM_RETURN_IF_ERROR(nemotron_moe(mixer));
  } else if (a.has_mlp(i)) {
    GPUMEM_RETURN_IF_ERROR(add_dense_mlp(list_, ctx_, mixer, mixer, a.intermediate_size,
                                         ctx_.layout.tp_size, post_load_));
  } else {
    const AttentionSite site{mixer, mixer, a.hidden_size, layer_rope(i)};
    GPUMEM_RETURN_IF_ERROR(add_standard_attention(list_, ctx_, site, ropes_, post_load_));
  }
  add_norm(list_, ctx_, prefix + ".norm.weight", a.hidden_size);
  return Status::ok_status();
}

// vllm and sglang nemotron_nas.py DeciLMDecoderLayer.__init__: self_attn and input_layernorm
// unless the attention is a no-op, then mlp (LlamaMLP of the layer's own width) and
// post_attention_layernorm unless the FFN is one.
Status ModelBuilder::decilm_layer(std::int64_t i, const std::string& prefix) {
  const Architecture& a = ctx_.arch;
  if (a.layer_types[static_cast<size_t>(i)] != LayerAttention::kNone) {
    const AttentionSite site{prefix + ".self_attn", prefix + ".self_attn", a.hidden_size,
                             layer_rope(i)};
    GPUMEM_RETURN_IF_ERROR(add_standard_attention(list_, ctx_, site, ropes_, post_load_));
    decoder_norm(prefix + ".input_layernorm");
  }
  if (!a.has_mlp(i)) return Status::ok_status();
  GPUMEM_RETURN_IF_ERROR(add_dense_mlp(list_, ctx_, prefix + ".mlp", prefix + ".mlp",
                                       a.layer_intermediate_size(i), ctx_.layout.tp_size,
                                       post_load_));
  decoder_norm(prefix + ".post_attention_layernorm");
  return Status::ok_status();
}

// vllm jamba.py JambaMambaDecoderLayer / JambaAttentionDecoderLayer: the Mamba-1 mixer
// (self.mamba) or attention without RoPE, then feed_forward (JambaMoE: a ReplicatedLinear
// router and FusedMoE; or the dense JambaMLP), input_layernorm and pre_ff_layernorm.
Status ModelBuilder::jamba_layer(std::int64_t i, const std::string& prefix) {
  const Architecture& a = ctx_.arch;
  if (a.is_linear_layer(i)) {
    GPUMEM_RETURN_IF_ERROR(add_mamba1_mixer(list_, ctx_, prefix + ".mamba", post_load_));
  } else {
    const AttentionSite site{prefix + ".self_attn", prefix + ".self_attn", a.hidden_size,
                             layer_rope(i)};
    GPUMEM_RETURN_IF_ERROR(add_standard_attention(list_, ctx_, site, ropes_, post_load_));
  }
  const std::string ffn = prefix + ".feed_forward";
  if (a.is_moe_layer(i)) {
    linear_router(ffn + ".router", false);
    GPUMEM_RETURN_IF_ERROR(experts(ffn));
  } else {
    GPUMEM_RETURN_IF_ERROR(
        add_dense_mlp(list_, ctx_, ffn, ffn, a.intermediate_size, ctx_.layout.tp_size, post_load_));
  }
  add_norm(list_, ctx_, prefix + ".input_layernorm.weight", a.hidden_size);
  add_norm(list_, ctx_, prefix + ".pre_ff_layernorm.weight", a.hidden_size);
  return Status::ok_status();
}

}  // namespace gpumem
