#include "catalog/parameter_count.h"

namespace gpumem {
namespace {

std::int64_t mla_attention(const Architecture& a) {
  const std::int64_t h = a.hidden_size;
  const std::int64_t heads = a.num_attention_heads;
  const MlaConfig& m = a.mla;
  const std::int64_t qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
  std::int64_t n = 0;
  if (m.q_lora_rank > 0) {
    n += h * m.q_lora_rank + m.q_lora_rank;  // q_a_proj, q_a_layernorm
    n += m.q_lora_rank * heads * qk_head;    // q_b_proj
  } else {
    n += h * heads * qk_head;  // q_proj
  }
  n += h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank;    // kv_a_proj, kv_a_layernorm
  n += m.kv_lora_rank * heads * (m.qk_nope_head_dim + a.v_head_dim);  // kv_b_proj
  n += heads * a.v_head_dim * h;                                      // o_proj
  if (m.sparse_indexer()) {
    // DeepSeek-V3.2's Indexer: wq_b, wk, k_norm (LayerNorm: weight and bias), weights_proj.
    n += m.q_lora_rank * m.index_n_heads * m.index_head_dim + h * m.index_head_dim +
         2 * m.index_head_dim + h * m.index_n_heads;
  }
  return n;
}

std::int64_t standard_attention(const Architecture& a, std::int64_t layer) {
  // An EAGLE-3 decoder layer attends over [embedding, hidden] concatenated: 2 x hidden in.
  const std::int64_t in = a.is_draft_head() ? 2 * a.hidden_size : a.hidden_size;
  const std::int64_t head_dim = a.layer_head_dim(layer);
  const std::int64_t q = a.num_attention_heads * head_dim;
  const std::int64_t kv = a.layer_kv_heads(layer) * head_dim;
  const std::int64_t q_out = a.attn_output_gate ? 2 * q : q;  // Qwen3-Next: gate rows
  // Gemma 4's k_eq_v full layers store no v_proj; their o_proj reads the global head size.
  const bool no_v = a.attention_k_eq_v && !a.is_sliding_layer(layer);
  const std::int64_t v_head = a.global_head_dim > 0 ? head_dim : a.v_head_dim;
  std::int64_t n =
      in * (q_out + (no_v ? 1 : 2) * kv) + a.num_attention_heads * v_head * a.hidden_size;
  if (a.qkv_bias) n += q + 2 * kv;
  if (a.o_proj_bias) n += a.hidden_size;
  if (a.qk_norm_per_layer) {
    n += q + kv;  // MiniMax-M2: one weight over all query heads, one over all KV heads
  } else if (a.qk_norm) {
    n += 2 * head_dim;
  }
  if (a.attention_sinks) n += a.num_attention_heads;
  return n;
}

std::int64_t moe_block(const Architecture& a) {
  const MoeConfig& m = a.moe;
  const std::int64_t h = a.hidden_size;
  // A gated expert or MLP has gate, up and down; NemotronH's relu2 ones up and down.
  const std::int64_t matrices = a.gated_mlp ? 3 : 2;
  std::int64_t n = m.num_experts * matrices * h * m.moe_intermediate_size;
  if (m.expert_bias) n += m.num_experts * (2 * m.moe_intermediate_size + h);
  n += m.num_experts * h;  // router
  if (m.router_bias) n += m.num_experts;
  if (m.router_correction_bias) n += m.num_experts;
  n += matrices * h * m.shared_expert_intermediate_size;
  if (m.shared_expert_gate) n += h;
  return n;
}

// A vision tower's parameters. Gemma 3: HF SiglipVisionModel without its head and
// Gemma3MultiModalProjector: patch embedding,
// position embedding, per layer two LayerNorms, q/k/v/out projections and fc1/fc2 (all
// biased), the post-LayerNorm, the projection matrix and its RMSNorm.
std::int64_t vision_parameter_count(const VisionTower& v, std::int64_t text_hidden) {
  const std::int64_t h = v.hidden_size;
  if (v.kind == VisionKind::kQwen3Vit) {
    // HF Qwen3VLVisionModel: biased Conv3d, the position table; per block two LayerNorms and
    // four biased linears; the merger (LayerNorm over the width) and the deepstack mergers
    // (LayerNorm over merge^2 x width), each with two biased linears.
    const std::int64_t i = v.intermediate_size;
    const std::int64_t m = h * v.spatial_merge_size * v.spatial_merge_size;
    const std::int64_t block = 4 * h + 3 * h * h + 3 * h + h * h + h + 2 * i * h + i + h;
    const std::int64_t linears = m * m + m + v.out_hidden_size * m + v.out_hidden_size;
    return h * v.num_channels * v.temporal_patch_size * v.patch_size * v.patch_size + h +
           v.num_position_embeddings * h + v.num_hidden_layers * block + 2 * h + linears +
           v.deepstack_mergers() * (2 * m + linears);
  }
  if (v.kind == VisionKind::kGemma4Vit) {
    // HF Gemma4VisionModel: the patch projection (no bias), a position table per axis; per
    // layer q/k/v/o and the gated MLP without biases, q/k norms per head, four norms; std_bias
    // and std_scale; embed_vision's projection into the text width.
    const std::int64_t i = v.intermediate_size;
    const std::int64_t block = 4 * h * h + 2 * (h / v.num_attention_heads) + 3 * i * h + 4 * h;
    return h * v.num_channels * v.patch_size * v.patch_size + 2 * v.num_position_embeddings * h +
           v.num_hidden_layers * block + (v.standardize ? 2 * h : 0) + text_hidden * h;
  }
  if (v.kind == VisionKind::kMoonVit) {
    // Kimi-K2.5's MoonViT: a biased Conv2d, the rows x columns position table; per block
    // biased wqkv, wo, fc0 and fc1 and two LayerNorms; the final LayerNorm. The patch-merger
    // projector: pre_norm over the width, then biased linears over merge^2 x width and into
    // the text width.
    const std::int64_t i = v.intermediate_size;
    const std::int64_t m = h * v.spatial_merge_size * v.spatial_merge_size;
    const std::int64_t block = 3 * h * h + 3 * h + h * h + h + 2 * i * h + i + h + 4 * h;
    return h * v.num_channels * v.patch_size * v.patch_size + h +
           v.position_rows * v.position_columns * h + v.num_hidden_layers * block + 2 * h + 2 * h +
           m * m + m + v.out_hidden_size * m + v.out_hidden_size;
  }
  if (v.kind == VisionKind::kPixtral) {
    // HF PixtralVisionModel: a bias-free Conv2d, ln_pre; per layer two RMSNorms, q/k/v/o and
    // the gated MLP, all without bias; Mistral3MultiModalProjector: its RMSNorm, the patch
    // merger's linear over merge^2 x width, linear_1 and linear_2 (biased per
    // multimodal_projector_bias).
    const std::int64_t i = v.intermediate_size;
    const std::int64_t m = v.spatial_merge_size * v.spatial_merge_size;
    const std::int64_t b = v.projector_bias ? 1 : 0;
    return h * v.num_channels * v.patch_size * v.patch_size + h +
           v.num_hidden_layers * (2 * h + 4 * h * h + 3 * h * i) + h + h * m * h +
           (h + b) * text_hidden + (text_hidden + b) * text_hidden;
  }
  if (v.kind == VisionKind::kClip) {
    // HF CLIPVisionModel (transformers modeling_clip.py): class embedding, a bias-free Conv2d,
    // a position table of patches + 1 rows, pre_layrnorm; per layer two LayerNorms, biased
    // q/k/v/out and fc1/fc2; post_layernorm. LlavaMultiModalProjector: linear_1 over the
    // feature layers' concatenation and linear_2 (biased per multimodal_projector_bias);
    // LLaVA-NeXT adds image_newline, one text-width vector.
    const std::int64_t i = v.intermediate_size;
    const std::int64_t b = v.projector_bias ? 1 : 0;
    const std::int64_t features = h * static_cast<std::int64_t>(v.feature_layers.size());
    const std::int64_t block = 4 * h + 4 * (h * h + h) + 2 * i * h + i + h;
    return h + h * v.num_channels * v.patch_size * v.patch_size + (v.num_patches() + 1) * h +
           2 * h + v.num_hidden_layers * block + 2 * h + (features + b) * text_hidden +
           (text_hidden + b) * text_hidden + (v.grid_pinpoints.empty() ? 0 : text_hidden);
  }
  if (v.kind == VisionKind::kLlama4Vit) {
    // HF Llama4VisionModel: the unfold patch linear (no bias), class embedding, position table
    // of (image / patch)^2 + 1 rows, LayerNorms before and after; per layer two LayerNorms and
    // four biased attention projections, biased fc1/fc2; the pixel-shuffle adapter's two
    // linears (no bias) and Llama4MultiModalProjector's linear_1 (no bias).
    const std::int64_t i = v.intermediate_size;
    const std::int64_t side = v.image_size / v.patch_size;
    const std::int64_t block = 4 * h + 4 * (h * h + h) + 2 * i * h + i + h;
    return h * v.num_channels * v.patch_size * v.patch_size + h + (side * side + 1) * h + 4 * h +
           v.num_hidden_layers * block + i * v.projector_input_dim +
           v.projector_output_dim * v.projector_output_dim + v.out_hidden_size * text_hidden;
  }
  if (v.kind == VisionKind::kGlm4vVit) {
    // HF Glm4vVisionModel: a biased Conv3d, the position table, RMSNorms after the patch
    // embedding and at the end; per block two RMSNorms, qkv (biased with attention_bias), proj,
    // a bias-free gated MLP of out_hidden_size; the biased Conv2d downsample; the merger's
    // bias-free proj, its LayerNorm and a bias-free gated MLP of intermediate_size.
    const std::int64_t o = v.out_hidden_size;
    const std::int64_t i = v.intermediate_size;
    const std::int64_t m = v.spatial_merge_size;
    const std::int64_t block = 2 * h + 3 * h * h + (v.qkv_bias ? 3 * h : 0) + h * h + 3 * o * h;
    return h * v.num_channels * v.temporal_patch_size * v.patch_size * v.patch_size + h +
           v.num_patches() * h + h + v.num_hidden_layers * block + h + o * h * m * m + o + o * o +
           2 * o + 3 * i * o;
  }
  if (v.kind == VisionKind::kQwen2Vit) {
    // HF Qwen2VisionTransformerPretrainedModel: Conv3d without bias; per block two LayerNorms,
    // qkv, proj, fc1 and fc2 with biases; the merger's LayerNorm and its two biased linears.
    const std::int64_t i = v.intermediate_size;
    const std::int64_t m = h * v.spatial_merge_size * v.spatial_merge_size;
    const std::int64_t block = 4 * h + 3 * h * h + 3 * h + h * h + h + i * h + i + h * i + h;
    return h * v.num_channels * v.temporal_patch_size * v.patch_size * v.patch_size +
           v.num_hidden_layers * block + 2 * h + m * m + m + v.out_hidden_size * m +
           v.out_hidden_size;
  }
  if (v.kind == VisionKind::kQwen25Vit) {
    // HF Qwen2_5_VisionTransformer: Conv3d without bias; per block two RMSNorms, qkv and proj
    // with biases, gate/up/down with biases; the merger's RMSNorm and its two biased linears.
    const std::int64_t i = v.intermediate_size;
    const std::int64_t m = h * v.spatial_merge_size * v.spatial_merge_size;
    const std::int64_t block = 2 * h + 3 * h * h + 3 * h + h * h + h + 2 * (i * h + i) + h * i + h;
    return h * v.num_channels * v.temporal_patch_size * v.patch_size * v.patch_size +
           v.num_hidden_layers * block + h + m * m + m + v.out_hidden_size * m + v.out_hidden_size;
  }
  const std::int64_t per_layer =
      2 * 2 * h + 4 * (h * h + h) + 2 * h * v.intermediate_size + v.intermediate_size + h;
  return h * v.num_channels * v.patch_size * v.patch_size + h + v.num_patches() * h +
         v.num_hidden_layers * per_layer + 2 * h + h * text_hidden + h;
}

// A Gated DeltaNet module (Qwen3-Next): in_proj_qkvz, in_proj_ba, the depthwise conv1d, dt_bias
// and A_log per value head, the gated norm and out_proj.
std::int64_t gated_delta_net(const Architecture& a) {
  const LinearAttentionConfig& g = a.linear;
  const std::int64_t h = a.hidden_size;
  return h * (2 * g.key_dim() + 2 * g.value_dim()) + h * 2 * g.num_value_heads +
         g.conv_dim() * g.conv_kernel + 2 * g.num_value_heads + g.value_head_dim +
         g.value_dim() * h;
}

// Kimi Linear's KimiDeltaAttention (vllm layers/kda.py): q/k/v projections and their depthwise
// convolutions, the low-rank forget gate (f_a, f_b) and output gate (g_a, g_b), b_proj, A_log
// per head, dt_bias per channel, the gated head norm and o_proj.
std::int64_t kimi_delta_attention(const Architecture& a) {
  const LinearAttentionConfig& g = a.linear;
  const std::int64_t h = a.hidden_size;
  const std::int64_t p = g.value_dim();
  const std::int64_t d = g.value_head_dim;
  return 3 * p * h + 3 * p * g.conv_kernel + 2 * d * h + 2 * p * d + g.num_value_heads * h +
         g.num_value_heads + p + d + h * p;
}

}  // namespace

namespace {

// HF NemotronHMamba2Mixer: in_proj (z, x, B, C, dt), conv1d [+ bias], A_log, D, dt_bias, the
// gated norm and out_proj.
std::int64_t mamba2_mixer(const Architecture& a) {
  const LinearAttentionConfig& g = a.linear;
  const std::int64_t h = a.hidden_size;
  const std::int64_t conv_dim = g.value_dim() + 2 * g.num_key_heads * g.key_head_dim;
  return h * (g.value_dim() + conv_dim + g.num_value_heads) +
         conv_dim * (g.conv_kernel + (g.conv_bias ? 1 : 0)) + 3 * g.num_value_heads +
         g.value_dim() + g.value_dim() * h;
}

// HF JambaMambaMixer and MambaMixer (vllm MambaMixer alike): in_proj (x and z), conv1d
// [+ bias], x_proj (dt, B and C), dt_proj with its bias, A_log and D per channel and state,
// Jamba's dt/B/C RMSNorm weights, and out_proj. In Mamba-2 terms the inner width is the value
// dim and the state the key head dim.
std::int64_t mamba1_mixer(const Architecture& a) {
  const LinearAttentionConfig& g = a.linear;
  const std::int64_t h = a.hidden_size;
  const std::int64_t inner = g.value_dim();
  const std::int64_t n = g.key_head_dim;
  const std::int64_t r = g.time_step_rank;
  return h * 2 * inner + inner * (g.conv_kernel + (g.conv_bias ? 1 : 0)) + (r + 2 * n) * inner +
         r * inner + inner + inner * n + inner + inner * h + (g.dt_bc_norm_weights ? r + 2 * n : 0);
}

// A decoder norm's parameters: an RMSNorm's weight, or a LayerNorm's weight and bias.
std::int64_t norm_parameters(const Architecture& a) {
  return a.layer_norm_bias ? 2 * a.hidden_size : a.hidden_size;
}

// A DeepSeek-V4 decoder layer (the tensors of weights/deepseek_v4_checkpoint.h, counted as
// values: an MXFP4 expert weight is 2 values a stored byte, scales are not parameters).
std::int64_t compressed_attention_layer(const Architecture& a, std::int64_t layer) {
  const std::int64_t h = a.hidden_size;
  const std::int64_t latent = a.head_dim;
  const std::int64_t heads = a.num_attention_heads;
  const MlaConfig& m = a.mla;
  const CompressedAttention& c = a.csa;
  const MoeConfig& e = a.moe;
  const std::int64_t ratio = c.ratio(layer);
  // Norms, q_norm, kv_norm, wq_a, wq_b, wkv, wo_a, wo_b, attn_sink.
  std::int64_t n = 2 * h + m.q_lora_rank + latent + m.q_lora_rank * h +
                   heads * latent * m.q_lora_rank + latent * h + heads * latent * c.o_lora_rank +
                   h * c.o_groups * c.o_lora_rank + heads;
  // A compressor: wkv and wgate (twice as wide for the overlapping ratio 4), ape, norm.
  const auto compressor = [&](std::int64_t width) {
    const std::int64_t w = (ratio == 4 ? 2 : 1) * width;
    return 2 * w * h + ratio * w + width;
  };
  if (ratio > 1) n += compressor(latent);
  if (ratio == 4) {
    n += m.index_n_heads * m.index_head_dim * m.q_lora_rank + m.index_n_heads * h +
         compressor(m.index_head_dim);
  }
  const std::int64_t mixes = (2 + c.hc_mult) * c.hc_mult;
  n += 2 * (mixes * c.hc_mult * h + mixes + 3);
  // Router, its tid2eid table or bias, the shared expert and the routed experts.
  n += e.num_experts * h +
       (layer < c.num_hash_layers ? a.vocab_size * e.experts_per_token : e.num_experts);
  n += 3 * h * e.shared_expert_intermediate_size;
  return n + e.num_experts * 3 * h * e.moe_intermediate_size;
}

}  // namespace

std::int64_t layer_parameter_count(const Architecture& a, std::int64_t layer) {
  const std::int64_t h = a.hidden_size;
  if (a.family == ArchitectureFamily::kDeepseekV4) return compressed_attention_layer(a, layer);
  if (a.single_module_layers) {
    // NemotronH and Mamba stacks: one module and one norm per layer.
    if (a.is_linear_layer(layer)) {
      return (a.linear.kind == LinearKind::kMamba1 ? mamba1_mixer(a) : mamba2_mixer(a)) + h;
    }
    if (a.is_moe_layer(layer)) return moe_block(a) + h;
    if (a.has_mlp(layer)) return 2 * h * a.intermediate_size + h;
    return standard_attention(a, layer) + h;
  }
  if (a.family == ArchitectureFamily::kDeciLM) {
    // HF modeling_decilm.py DeciLMDecoderLayer: a no-op attention drops self_attn and
    // input_layernorm, a no-op FFN the MLP and post_attention_layernorm.
    const bool attends = a.layer_types[static_cast<size_t>(layer)] != LayerAttention::kNone;
    std::int64_t n = attends ? standard_attention(a, layer) + norm_parameters(a) : 0;
    if (a.has_mlp(layer)) n += 3 * h * a.layer_intermediate_size(layer) + norm_parameters(a);
    return n;
  }
  std::int64_t n =
      a.attention == AttentionKind::kMla ? mla_attention(a) : standard_attention(a, layer);
  if (a.is_linear_layer(layer)) {
    n = a.linear.kind == LinearKind::kMamba2      ? mamba2_mixer(a)
        : a.linear.kind == LinearKind::kMamba1    ? mamba1_mixer(a)
        : a.linear.kind == LinearKind::kKimiDelta ? kimi_delta_attention(a)
                                                  : gated_delta_net(a);
  }
  if (a.family == ArchitectureFamily::kGraniteHybrid) {
    // Granite 4.0-H: the experts and their router when there are any, the shared MLP.
    n += (a.moe.num_experts > 0 ? moe_block(a) : 3 * h * a.moe.shared_expert_intermediate_size);
  } else if (a.moe_beside_mlp) {
    // Gemma 4: the dense MLP in every layer; experts with the router's proj, scale [hidden] and
    // per_expert_scale [experts], and three more norms, where the layer has them.
    n += 3 * h * a.intermediate_size;
    if (a.is_moe_layer(layer)) n += moe_block(a) + h + a.moe.num_experts + 3 * h;
  } else {
    // A gated MLP has gate, up and down; Arcee's and NemotronH's relu2 ones up and down.
    n += a.is_moe_layer(layer) ? moe_block(a) : (a.gated_mlp ? 3 : 2) * h * a.intermediate_size;
  }
  if (a.layer_scalar) n += 1;
  // Norms: input + post-attention; Gemma3 adds pre/post feed-forward; an EAGLE-3 midlayer
  // adds hidden_norm for the target's hidden states; Cohere's parallel block has the input one.
  const std::int64_t norms = a.sandwich_norms    ? 4
                             : a.is_draft_head() ? 3
                             : a.parallel_block  ? 1
                                                 : 2;
  return n + norms * norm_parameters(a);
}

std::int64_t parameter_count(const Architecture& a) {
  const std::int64_t h = a.hidden_size;
  std::int64_t n = a.vision.present() ? vision_parameter_count(a.vision, h) : 0;
  for (std::int64_t layer = 0; layer < a.num_hidden_layers; ++layer) {
    n += layer_parameter_count(a, layer);
  }
  n += norm_parameters(a);  // final norm
  // DeepSeek-V4: the hyper-connection mixer before the head.
  if (a.csa.present()) n += a.csa.hc_mult * (a.csa.hc_mult * h + 1) + 1;
  if (a.is_draft_head()) return n + a.eagle_fc_input_size * h + a.draft_vocab_size * h;
  n += a.vocab_size * h;  // embed_tokens
  if (!a.tie_word_embeddings) n += a.vocab_size * h;
  if (a.lm_head_bias) n += a.vocab_size;
  return n;
}

}  // namespace gpumem
