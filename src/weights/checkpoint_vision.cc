// The vision towers and projectors of a checkpoint (checkpoint_builder.h).
#include "weights/checkpoint_builder.h"

namespace gpumem {

// HF SiglipVisionModel without its head (Gemma 3's vision_tower) and
// Gemma3MultiModalProjector, all in the model dtype.
Status CheckpointBuilder::vision_tower() {
  switch (a_.vision.kind) {
    case VisionKind::kQwen2Vit:
    case VisionKind::kQwen25Vit:
      return qwen2_vit();
    case VisionKind::kGemma4Vit:
      return gemma4_vit();
    case VisionKind::kMoonVit:
      return moon_vit();
    case VisionKind::kGlm4vVit:
      return glm4v_vit();
    case VisionKind::kQwen3Vit:
      return qwen3_vit();
    default:
      return siglip();
  }
}

// HF Qwen3VLVisionModel ("model.visual."): a biased Conv3d, the position table, blocks of two
// LayerNorms, qkv, proj, linear_fc1 and linear_fc2 (all biased), the merger and the deepstack
// mergers (each a LayerNorm and two biased linears over merge^2 x width).
Status CheckpointBuilder::qwen3_vit() {
  const VisionTower& v = a_.vision;
  const std::int64_t h = v.hidden_size;
  const std::int64_t merged = h * v.spatial_merge_size * v.spatial_merge_size;
  const std::string t = "model.visual.";
  add(t + "patch_embed.proj.weight",
      {h, v.num_channels, v.temporal_patch_size, v.patch_size, v.patch_size}, dtype_);
  add(t + "patch_embed.proj.bias", {h}, dtype_);
  add(t + "pos_embed.weight", {v.num_position_embeddings, h}, dtype_);
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string b = t + "blocks." + str(i);
    layer_norm(b + ".norm1", h);
    layer_norm(b + ".norm2", h);
    GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.qkv", 3 * h, h, true));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.proj", h, h, true));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.linear_fc1", v.intermediate_size, h, true));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.linear_fc2", h, v.intermediate_size, true));
  }
  for (std::int64_t m = -1; m < v.deepstack_mergers(); ++m) {
    const std::string p = m < 0 ? t + "merger" : t + "deepstack_merger_list." + str(m);
    layer_norm(p + ".norm", m < 0 ? h : merged);
    GPUMEM_RETURN_IF_ERROR(linear(p + ".linear_fc1", merged, merged, true));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".linear_fc2", v.out_hidden_size, merged, true));
  }
  return Status::ok_status();
}

// HF Qwen2_5_VisionTransformer ("visual."): the Conv3d patch embedding, blocks of two
// RMSNorms, a fused biased qkv, proj and the gated MLP, and the patch merger. Qwen2-VL's
// (Qwen2VisionTransformerPretrainedModel) has LayerNorms and a biased fc1/fc2 MLP instead.
Status CheckpointBuilder::qwen2_vit() {
  const VisionTower& v = a_.vision;
  const bool qwen2 = v.kind == VisionKind::kQwen2Vit;
  const std::int64_t h = v.hidden_size;
  const std::int64_t merged = h * v.spatial_merge_size * v.spatial_merge_size;
  const auto vit_norm = [&](const std::string& module) {
    if (qwen2) {
      layer_norm(module, h);
    } else {
      norm(module, h);
    }
  };
  add("visual.patch_embed.proj.weight",
      {h, v.num_channels, v.temporal_patch_size, v.patch_size, v.patch_size}, dtype_);
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string b = "visual.blocks." + str(i);
    vit_norm(b + ".norm1");
    vit_norm(b + ".norm2");
    GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.qkv", 3 * h, h, true));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.proj", h, h, true));
    if (qwen2) {
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.fc1", v.intermediate_size, h, true));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.fc2", h, v.intermediate_size, true));
      continue;
    }
    GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.gate_proj", v.intermediate_size, h, true));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.up_proj", v.intermediate_size, h, true));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.down_proj", h, v.intermediate_size, true));
  }
  vit_norm("visual.merger.ln_q");
  GPUMEM_RETURN_IF_ERROR(linear("visual.merger.mlp.0", merged, merged, true));
  return linear("visual.merger.mlp.2", v.out_hidden_size, merged, true);
}

// HF Gemma4VisionModel ("vision_tower."): the patch projection and the two-axis position
// table, per layer q/k/v/o and the gated MLP (each a ".linear" of a clippable linear), q/k
// norms per head and four norms; std_bias and std_scale; embed_vision's projection.
Status CheckpointBuilder::gemma4_vit() {
  const VisionTower& v = a_.vision;
  const std::int64_t h = v.hidden_size;
  const std::int64_t i = v.intermediate_size;
  const std::string t = "vision_tower.";
  add(t + "patch_embedder.input_proj.weight", {h, v.num_channels * v.patch_size * v.patch_size},
      dtype_);
  add(t + "patch_embedder.position_embedding_table", {2, v.num_position_embeddings, h}, dtype_);
  for (std::int64_t l = 0; l < v.num_hidden_layers; ++l) {
    const std::string p = t + "encoder.layers." + str(l);
    for (const char* proj : {".q_proj", ".k_proj", ".v_proj", ".o_proj"}) {
      GPUMEM_RETURN_IF_ERROR(linear(p + ".self_attn" + proj + ".linear", h, h, false));
    }
    norm(p + ".self_attn.q_norm", h / v.num_attention_heads);
    norm(p + ".self_attn.k_norm", h / v.num_attention_heads);
    GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.gate_proj.linear", i, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.up_proj.linear", i, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.down_proj.linear", h, i, false));
    for (const char* n : {".input_layernorm", ".post_attention_layernorm",
                          ".pre_feedforward_layernorm", ".post_feedforward_layernorm"}) {
      norm(p + n, h);
    }
  }
  if (v.standardize) {
    add(t + "std_bias", {h}, dtype_);
    add(t + "std_scale", {h}, dtype_);
  }
  return linear("embed_vision.embedding_projection", a_.hidden_size, h, false);
}

// Kimi-K2.5 ("vision_tower.", "mm_projector."): the biased patch Conv2d, pos_emb [rows,
// columns, width]; blocks of wqkv, wo, mlp.fc0 and mlp.fc1 (all biased) and LayerNorms norm0
// and norm1; final_layernorm; the projector's pre_norm and proj.0 / proj.2.
Status CheckpointBuilder::moon_vit() {
  const VisionTower& v = a_.vision;
  const std::int64_t h = v.hidden_size;
  const std::int64_t m = h * v.spatial_merge_size * v.spatial_merge_size;
  const std::string t = "vision_tower.";
  add(t + "patch_embed.proj.weight", {h, v.num_channels, v.patch_size, v.patch_size}, dtype_);
  add(t + "patch_embed.proj.bias", {h}, dtype_);
  add(t + "patch_embed.pos_emb.weight", {v.position_rows, v.position_columns, h}, dtype_);
  // The text model's quantization (compressed-tensors INT4, targets "Linear") leaves these
  // linears in the model dtype: the published files hold them in bfloat16.
  const auto dense = [&](const std::string& module, std::int64_t out, std::int64_t in) {
    add(module + ".weight", {out, in}, dtype_);
    add(module + ".bias", {out}, dtype_);
  };
  for (std::int64_t l = 0; l < v.num_hidden_layers; ++l) {
    const std::string b = t + "encoder.blocks." + str(l);
    dense(b + ".wqkv", 3 * h, h);
    dense(b + ".wo", h, h);
    dense(b + ".mlp.fc0", v.intermediate_size, h);
    dense(b + ".mlp.fc1", h, v.intermediate_size);
    layer_norm(b + ".norm0", h);
    layer_norm(b + ".norm1", h);
  }
  layer_norm(t + "encoder.final_layernorm", h);
  layer_norm("mm_projector.pre_norm", h);
  dense("mm_projector.proj.0", m, m);
  dense("mm_projector.proj.2", v.out_hidden_size, m);
  return Status::ok_status();
}

// HF Glm4vVisionModel ("model.visual."): the biased Conv3d, the position table,
// post_conv_layernorm; blocks of RMSNorms norm1 and norm2, qkv (biased with attention_bias),
// proj and the gated MLP of out_hidden_size; post_layernorm, the biased Conv2d downsample,
// and the merger: proj, post_projection_norm (a LayerNorm) and its gated MLP of
// intermediate_size, all linears without biases.
Status CheckpointBuilder::glm4v_vit() {
  const VisionTower& v = a_.vision;
  const std::int64_t h = v.hidden_size;
  const std::int64_t o = v.out_hidden_size;
  const std::string t = "model.visual.";
  add(t + "patch_embed.proj.weight",
      {h, v.num_channels, v.temporal_patch_size, v.patch_size, v.patch_size}, dtype_);
  add(t + "patch_embed.proj.bias", {h}, dtype_);
  add(t + "embeddings.position_embedding.weight", {v.num_patches(), h}, dtype_);
  norm(t + "post_conv_layernorm", h);
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string b = t + "blocks." + str(i);
    norm(b + ".norm1", h);
    norm(b + ".norm2", h);
    GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.qkv", 3 * h, h, v.qkv_bias));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.proj", h, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.gate_proj", o, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.up_proj", o, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.down_proj", h, o, false));
  }
  norm(t + "post_layernorm", h);
  add(t + "downsample.weight", {o, h, v.spatial_merge_size, v.spatial_merge_size}, dtype_);
  add(t + "downsample.bias", {o}, dtype_);
  GPUMEM_RETURN_IF_ERROR(linear(t + "merger.proj", o, o, false));
  layer_norm(t + "merger.post_projection_norm", o);
  GPUMEM_RETURN_IF_ERROR(linear(t + "merger.gate_proj", v.intermediate_size, o, false));
  GPUMEM_RETURN_IF_ERROR(linear(t + "merger.up_proj", v.intermediate_size, o, false));
  return linear(t + "merger.down_proj", o, v.intermediate_size, false);
}

Status CheckpointBuilder::siglip() {
  const VisionTower& v = a_.vision;
  const std::string t = "vision_tower.vision_model";
  add(t + ".embeddings.patch_embedding.weight",
      {v.hidden_size, v.num_channels, v.patch_size, v.patch_size}, dtype_);
  add(t + ".embeddings.patch_embedding.bias", {v.hidden_size}, dtype_);
  add(t + ".embeddings.position_embedding.weight", {v.num_patches(), v.hidden_size}, dtype_);
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string p = t + ".encoder.layers." + str(i);
    for (const char* n : {".layer_norm1", ".layer_norm2"}) {
      add(p + n + ".weight", {v.hidden_size}, dtype_);
      add(p + n + ".bias", {v.hidden_size}, dtype_);
    }
    for (const char* proj : {".q_proj", ".k_proj", ".v_proj", ".out_proj"}) {
      GPUMEM_RETURN_IF_ERROR(linear(p + ".self_attn" + proj, v.hidden_size, v.hidden_size, true));
    }
    GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.fc1", v.intermediate_size, v.hidden_size, true));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.fc2", v.hidden_size, v.intermediate_size, true));
  }
  add(t + ".post_layernorm.weight", {v.hidden_size}, dtype_);
  add(t + ".post_layernorm.bias", {v.hidden_size}, dtype_);
  add("multi_modal_projector.mm_input_projection_weight", {v.hidden_size, a_.hidden_size}, dtype_);
  add("multi_modal_projector.mm_soft_emb_norm.weight", {v.hidden_size}, dtype_);
  return Status::ok_status();
}

}  // namespace gpumem
