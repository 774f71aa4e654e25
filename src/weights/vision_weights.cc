#include "weights/vision_weights.h"

#include <string>

#include "weights/layer_weights.h"
#include "weights/linear_weights.h"

namespace gpumem {
namespace {

// nn.LayerNorm: weight and bias, in the dtype the model is built in.
void add_layer_norm(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                    std::int64_t size) {
  list.add(prefix + ".weight", {size}, ctx.dtype);
  list.add(prefix + ".bias", {size}, ctx.dtype);
}

// sglang and vllm distributed/utils.py ensure_divisibility assert while the tower is built.
Status not_divisible(const BuildContext& ctx, const std::string& what, std::int64_t n, int tp) {
  const std::string engine = ctx.rules.engine;
  const std::string count = std::to_string(n);
  const std::string ranks = std::to_string(tp);
  return invalid_input("the vision tower's " + what + " (" + count +
                       ") is not divisible by the tensor-parallel size " + ranks + "; " + engine +
                       " stops with AssertionError: " + count + " is not divisible by " + ranks);
}

// A ViT attention's biased q_proj/k_proj/v_proj, fused into one column-parallel qkv_proj of
// `rows` rows each over `group` ranks, and its biased row-parallel output projection (the
// checkpoint's out_proj, `out` in the engine's naming).
Status add_qkv_attention(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load,
                         const std::string& attn, const std::string& out, std::int64_t hidden,
                         std::int64_t rows, int group) {
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {attn + ".qkv_proj",
                                     {attn + ".q_proj", attn + ".k_proj", attn + ".v_proj"},
                                     {rows, rows, rows},
                                     hidden,
                                     LinearParallel::kColumn,
                                     group,
                                     true},
                                    post_load));
  return add_linear(list, ctx,
                    {out, {attn + ".out_proj"}, {hidden}, rows, LinearParallel::kRow, group, true},
                    post_load);
}

// A ViT attention whose checkpoint fuses q/k/v into one `qkv` (the Qwen and GLM-V towers): a
// column-parallel qkv_proj of `rows` rows each over `group` ranks and the row-parallel proj.
Status add_fused_qkv_attention(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load,
                               const std::string& attn, std::int64_t hidden, std::int64_t rows,
                               int group, bool qkv_bias, bool proj_bias) {
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {attn + ".qkv_proj",
                                     {attn + ".qkv"},
                                     {rows, rows, rows},
                                     hidden,
                                     LinearParallel::kColumn,
                                     group,
                                     qkv_bias},
                                    post_load));
  return add_linear(
      list, ctx,
      {attn + ".proj", {attn + ".proj"}, {hidden}, rows, LinearParallel::kRow, group, proj_bias},
      post_load);
}

// SigLIP and Gemma 3's projector.
Status add_siglip(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load) {
  const VisionTower& v = ctx.arch.vision;
  const int tp = ctx.layout.tp_size;
  const int attn_tp = attention_tp_size(ctx.layout);
  const std::string tower = "vision_tower.vision_model";
  if (v.num_attention_heads % attn_tp != 0) {
    return not_divisible(ctx, "attention heads", v.num_attention_heads, attn_tp);
  }
  if (v.intermediate_size % tp != 0) {
    return not_divisible(ctx, "intermediate size", v.intermediate_size, tp);
  }
  // siglip.py SiglipVisionEmbeddings: a Conv2d patch embedding with bias, the position
  // embedding as a VocabParallelEmbedding of num_patches rows, and the int64 position_ids
  // buffer (torch.arange(num_patches), created on the device with the model).
  list.add(tower + ".embeddings.patch_embedding.weight",
           {v.hidden_size, v.num_channels, v.patch_size, v.patch_size}, ctx.dtype);
  list.add(tower + ".embeddings.patch_embedding.bias", {v.hidden_size}, ctx.dtype);
  Result<std::int64_t> rows = vocab_rows_per_rank(v.num_patches(), tp, ctx.rules);
  if (!rows.ok()) return rows.status();
  list.add(tower + ".embeddings.position_embedding.weight", {*rows, v.hidden_size}, ctx.dtype);
  list.add(tower + ".embeddings.position_ids", {1, v.num_patches()}, DType::kInt64);

  const std::int64_t head_dim = v.hidden_size / v.num_attention_heads;
  const std::int64_t heads = v.num_attention_heads / attn_tp;
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string layer = tower + ".encoder.layers." + std::to_string(i);
    // siglip.py SiglipEncoderLayer.__init__: layer_norm1, layer_norm2, then VisionAttention
    // (use_qkv_parallel: a QKVParallelLinear and a RowParallelLinear `proj`, both biased,
    // split over the attention TP group) and SiglipMLP (ColumnParallel fc1, RowParallel fc2).
    add_layer_norm(list, ctx, layer + ".layer_norm1", v.hidden_size);
    add_layer_norm(list, ctx, layer + ".layer_norm2", v.hidden_size);
    const std::string attn = layer + ".self_attn";
    GPUMEM_RETURN_IF_ERROR(add_qkv_attention(list, ctx, post_load, attn, attn + ".proj",
                                             v.hidden_size, heads * head_dim, attn_tp));
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {layer + ".mlp.fc1",
                                       {layer + ".mlp.fc1"},
                                       {v.intermediate_size / tp},
                                       v.hidden_size,
                                       LinearParallel::kColumn,
                                       tp,
                                       true},
                                      post_load));
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {layer + ".mlp.fc2",
                                       {layer + ".mlp.fc2"},
                                       {v.hidden_size},
                                       v.intermediate_size / tp,
                                       LinearParallel::kRow,
                                       tp,
                                       true},
                                      post_load));
  }
  add_layer_norm(list, ctx, tower + ".post_layernorm", v.hidden_size);
  // gemma3_mm.py Gemma3MultiModalProjector.__init__: mm_input_projection_weight, an
  // nn.Parameter [vision hidden, text hidden], and the Gemma3RMSNorm mm_soft_emb_norm.
  list.add("multi_modal_projector.mm_input_projection_weight",
           {v.hidden_size, ctx.arch.hidden_size}, ctx.dtype);
  add_norm(list, ctx, "multi_modal_projector.mm_soft_emb_norm.weight", v.hidden_size);
  return Status::ok_status();
}

// A column-parallel then a row-parallel linear, both biased: a ViT MLP's or a merger's pair.
Status add_linear_pair(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load,
                       const std::string& first, const std::string& second, std::int64_t in,
                       std::int64_t width, std::int64_t out) {
  const int tp = ctx.layout.tp_size;
  GPUMEM_RETURN_IF_ERROR(add_linear(
      list, ctx, {first, {first}, {width / tp}, in, LinearParallel::kColumn, tp, true}, post_load));
  return add_linear(
      list, ctx, {second, {second}, {out}, width / tp, LinearParallel::kRow, tp, true}, post_load);
}

// A ViT's gated MLP under `mlp`: the checkpoint's gate_proj and up_proj fused into one
// column-parallel gate_up_proj over TP, and the row-parallel down_proj.
Status add_gated_mlp(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load,
                     const std::string& mlp, std::int64_t hidden, std::int64_t intermediate,
                     bool bias) {
  const int tp = ctx.layout.tp_size;
  const std::int64_t width = intermediate / tp;
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {mlp + ".gate_up_proj",
                                     {mlp + ".gate_proj", mlp + ".up_proj"},
                                     {width, width},
                                     hidden,
                                     LinearParallel::kColumn,
                                     tp,
                                     bias},
                                    post_load));
  return add_linear(
      list, ctx,
      {mlp + ".down_proj", {mlp + ".down_proj"}, {hidden}, width, LinearParallel::kRow, tp, bias},
      post_load);
}

// LLaVA's CLIP tower and projector as vLLM builds them (llava.py init_vision_tower_for_llava
// with require_post_norm False, clip.py CLIPVisionModel, LlavaMultiModalProjector; read in
// their 2026 copies): the class embedding, a bias-free Conv2d, the position table (an
// nn.Embedding of patches + 1 rows, whole on every rank) and its int64 position_ids buffer
// (created on the device, not persistent), pre_layrnorm; the layers up to the deepest feature
// layer, each two LayerNorms, a biased QKVParallelLinear and out_proj, biased fc1/fc2, split
// over the TP group; no post_layernorm. The projector's linear_1 is column-parallel, linear_2
// row-parallel; LLaVA-NeXT's image_newline is one text-width vector. SGLang serves neither
// (its plan refuses them).
Status add_clip(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load) {
  const VisionTower& v = ctx.arch.vision;
  const int tp = ctx.layout.tp_size;
  if (v.num_attention_heads % tp != 0) {
    return not_divisible(ctx, "attention heads", v.num_attention_heads, tp);
  }
  if (v.intermediate_size % tp != 0) {
    return not_divisible(ctx, "intermediate size", v.intermediate_size, tp);
  }
  const std::int64_t h = v.hidden_size;
  const std::string tower = "vision_tower.vision_model";
  list.add(tower + ".embeddings.class_embedding", {h}, ctx.dtype);
  list.add(tower + ".embeddings.patch_embedding.weight",
           {h, v.num_channels, v.patch_size, v.patch_size}, ctx.dtype);
  list.add(tower + ".embeddings.position_embedding.weight", {v.num_patches() + 1, h}, ctx.dtype);
  list.add(tower + ".embeddings.position_ids", {1, v.num_patches() + 1}, DType::kInt64);
  add_layer_norm(list, ctx, tower + ".pre_layrnorm", h);
  const std::int64_t rows = h / tp;
  for (std::int64_t i = 0; i < v.clip_layers_built(); ++i) {
    const std::string layer = tower + ".encoder.layers." + std::to_string(i);
    const std::string attn = layer + ".self_attn";
    GPUMEM_RETURN_IF_ERROR(
        add_qkv_attention(list, ctx, post_load, attn, attn + ".out_proj", h, rows, tp));
    add_layer_norm(list, ctx, layer + ".layer_norm1", h);
    GPUMEM_RETURN_IF_ERROR(add_linear_pair(list, ctx, post_load, layer + ".mlp.fc1",
                                           layer + ".mlp.fc2", h, v.intermediate_size, h));
    add_layer_norm(list, ctx, layer + ".layer_norm2", h);
  }
  const std::int64_t text = ctx.arch.hidden_size;
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {"multi_modal_projector.linear_1",
                                     {"multi_modal_projector.linear_1"},
                                     {text / tp},
                                     h * static_cast<std::int64_t>(v.feature_layers.size()),
                                     LinearParallel::kColumn,
                                     tp,
                                     v.projector_bias},
                                    post_load));
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {"multi_modal_projector.linear_2",
                                     {"multi_modal_projector.linear_2"},
                                     {text},
                                     text / tp,
                                     LinearParallel::kRow,
                                     tp,
                                     v.projector_bias},
                                    post_load));
  if (!v.grid_pinpoints.empty()) list.add("image_newline", {text}, ctx.dtype);
  return Status::ok_status();
}

// The Qwen ViTs' shared parts (sglang qwen2_5_vl.py Qwen2_5_VisionTransformer, read at
// 013902a; qwen3_vl.py Qwen3VLMoeVisionModel, read at 005fa83): a Conv3d patch embedding
// (biased in Qwen3-VL), Qwen3-VL's learned position embedding (an nn.Embedding, whole on every
// rank), the rotary inv_freq buffer (float32, head_dim / 4 entries), per block two norms
// (RMSNorm in Qwen2.5-VL, LayerNorm in Qwen3-VL), VisionAttention (q/k/v and proj, biased,
// split over the attention TP group) and the MLP (Qwen2.5-VL's gated gate/up and down,
// Qwen3-VL's linear_fc1 and linear_fc2, all biased), then the patch merger over merge^2 x width
// (Qwen3-VL adds a deepstack merger per deepstack_visual_indexes entry, normalized after the
// shuffle).
Status add_qwen_vit(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load) {
  const VisionTower& v = ctx.arch.vision;
  const bool qwen3 = v.kind == VisionKind::kQwen3Vit;
  const bool qwen2 = v.kind == VisionKind::kQwen2Vit;
  const int tp = ctx.layout.tp_size;
  const int attn_tp = attention_tp_size(ctx.layout);
  const std::int64_t h = v.hidden_size;
  const std::int64_t merged = h * v.spatial_merge_size * v.spatial_merge_size;
  if (v.num_attention_heads % attn_tp != 0) {
    return not_divisible(ctx, "attention heads", v.num_attention_heads, attn_tp);
  }
  if (v.intermediate_size % tp != 0) {
    return not_divisible(ctx, "intermediate size", v.intermediate_size, tp);
  }
  if (merged % tp != 0) return not_divisible(ctx, "merger width", merged, tp);
  const auto norm = [&](const std::string& prefix, std::int64_t size) {
    if (qwen3 || qwen2) {
      add_layer_norm(list, ctx, prefix, size);
    } else {
      add_norm(list, ctx, prefix + ".weight", size);
    }
  };
  list.add("visual.patch_embed.proj.weight",
           {h, v.num_channels, v.temporal_patch_size, v.patch_size, v.patch_size}, ctx.dtype);
  if (qwen3) {
    list.add("visual.patch_embed.proj.bias", {h}, ctx.dtype);
    list.add("visual.pos_embed.weight", {v.num_position_embeddings, h}, ctx.dtype);
  }
  const std::int64_t head_dim = h / v.num_attention_heads;
  list.add("visual.rotary_pos_emb.inv_freq", {head_dim / 4}, DType::kFloat32);
  const std::int64_t rows = v.num_attention_heads / attn_tp * head_dim;
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string b = "visual.blocks." + std::to_string(i);
    norm(b + ".norm1", h);
    norm(b + ".norm2", h);
    GPUMEM_RETURN_IF_ERROR(
        add_fused_qkv_attention(list, ctx, post_load, b + ".attn", h, rows, attn_tp, true, true));
    if (qwen3 || qwen2) {
      const std::string fc = qwen3 ? ".mlp.linear_fc" : ".mlp.fc";
      GPUMEM_RETURN_IF_ERROR(add_linear_pair(list, ctx, post_load, b + fc + "1", b + fc + "2", h,
                                             v.intermediate_size, h));
      continue;
    }
    GPUMEM_RETURN_IF_ERROR(
        add_gated_mlp(list, ctx, post_load, b + ".mlp", h, v.intermediate_size, true));
  }
  if (!qwen3) {
    norm("visual.merger.ln_q", h);
    return add_linear_pair(list, ctx, post_load, "visual.merger.mlp.0", "visual.merger.mlp.2",
                           merged, merged, v.out_hidden_size);
  }
  norm("visual.merger.norm", h);
  GPUMEM_RETURN_IF_ERROR(add_linear_pair(list, ctx, post_load, "visual.merger.linear_fc1",
                                         "visual.merger.linear_fc2", merged, merged,
                                         v.out_hidden_size));
  for (std::int64_t i = 0; i < v.deepstack_mergers(); ++i) {
    const std::string m = "visual.deepstack_merger_list." + std::to_string(i);
    norm(m + ".norm", merged);
    GPUMEM_RETURN_IF_ERROR(add_linear_pair(list, ctx, post_load, m + ".linear_fc1",
                                           m + ".linear_fc2", merged, merged, v.out_hidden_size));
  }
  for (std::int64_t i = 0; ctx.rules.deepstack_buffer_rows > 0 && i < v.deepstack_mergers(); ++i) {
    list.add("deepstack_input_embeds." + std::to_string(i),
             {ctx.rules.deepstack_buffer_rows, ctx.arch.hidden_size}, ctx.dtype);
  }
  return Status::ok_status();
}

// Mistral 3's Pixtral tower as SGLang builds it (sglang pixtral.py PixtralHFVisionModel, read
// at 0a60978d; mistral.py Mistral3ForConditionalGeneration over llava.py): a bias-free Conv2d
// patch_conv and the RMSNorm ln_pre; per layer attention_norm and ffn_norm (RMSNorm),
// VisionAttention (use_qkv_parallel, bias False: a QKVParallelLinear over the attention TP
// group and a RowParallelLinear proj) and PixtralHFMLP (a bias-free MergedColumnParallelLinear
// gate_up_proj and RowParallelLinear down_proj); transformers' PixtralRotaryEmbedding, whose
// float32 inv_freq buffer of (image_size / patch_size)^2 rows of head_dim is made on the device
// with the model (one buffer, as transformers 4.x registers it). The projector is
// transformers' Mistral3MultiModalProjector, plain modules whole on every rank: the RMSNorm,
// the patch merger's bias-free merging_layer over merge^2 x width, linear_1 and linear_2.
Status add_pixtral(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load) {
  const VisionTower& v = ctx.arch.vision;
  const int tp = ctx.layout.tp_size;
  const int attn_tp = attention_tp_size(ctx.layout);
  const std::int64_t h = v.hidden_size;
  if (v.num_attention_heads % attn_tp != 0) {
    return not_divisible(ctx, "attention heads", v.num_attention_heads, attn_tp);
  }
  if (v.intermediate_size % tp != 0) {
    return not_divisible(ctx, "intermediate size", v.intermediate_size, tp);
  }
  const std::string tower = "vision_tower";
  list.add(tower + ".patch_conv.weight", {h, v.num_channels, v.patch_size, v.patch_size},
           ctx.dtype);
  add_norm(list, ctx, tower + ".ln_pre.weight", h);
  const std::int64_t head_dim = h / v.num_attention_heads;
  const std::int64_t rows = v.num_attention_heads / attn_tp * head_dim;
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string layer = tower + ".transformer.layers." + std::to_string(i);
    add_norm(list, ctx, layer + ".attention_norm.weight", h);
    const std::string attn = layer + ".attention";
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {attn + ".qkv_proj",
                                       {attn + ".q_proj", attn + ".k_proj", attn + ".v_proj"},
                                       {rows, rows, rows},
                                       h,
                                       LinearParallel::kColumn,
                                       attn_tp,
                                       false},
                                      post_load));
    GPUMEM_RETURN_IF_ERROR(add_linear(
        list, ctx,
        {attn + ".proj", {attn + ".o_proj"}, {h}, rows, LinearParallel::kRow, attn_tp, false},
        post_load));
    GPUMEM_RETURN_IF_ERROR(add_gated_mlp(list, ctx, post_load, layer + ".feed_forward", h,
                                         v.intermediate_size, false));
    add_norm(list, ctx, layer + ".ffn_norm.weight", h);
  }
  const std::int64_t side = v.image_size / v.patch_size;
  list.add(tower + ".patch_positional_embedding.inv_freq", {side * side, head_dim},
           DType::kFloat32);
  const std::string p = "multi_modal_projector";
  const std::int64_t text = ctx.arch.hidden_size;
  add_norm(list, ctx, p + ".norm.weight", h);
  const std::int64_t merged = h * v.spatial_merge_size * v.spatial_merge_size;
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {p + ".patch_merger.merging_layer",
                                     {p + ".patch_merger.merging_layer"},
                                     {h},
                                     merged,
                                     LinearParallel::kReplicated,
                                     1,
                                     false},
                                    post_load));
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {p + ".linear_1",
                                     {p + ".linear_1"},
                                     {text},
                                     h,
                                     LinearParallel::kReplicated,
                                     1,
                                     v.projector_bias},
                                    post_load));
  return add_linear(list, ctx,
                    {p + ".linear_2",
                     {p + ".linear_2"},
                     {text},
                     text,
                     LinearParallel::kReplicated,
                     1,
                     v.projector_bias},
                    post_load);
}

// Gemma 4: vllm gemma4_mm.py Gemma4ForConditionalGeneration.__init__ (v0.19-0.21) builds
// the tower as HF's Gemma4VisionModel (AutoModel.from_config, plain nn.Linear layers in the
// model dtype, unquantized and whole on every rank), then embed_vision, a ReplicatedLinear
// into the text width. HF's vision rotary module keeps a float32 inv_freq buffer (its length
// is UNCONFIRMED; any up to 128 floats takes one 512-byte block).
Status add_gemma4_vit(TensorList& list, const BuildContext& ctx) {
  const VisionTower& v = ctx.arch.vision;
  const std::int64_t h = v.hidden_size;
  const std::int64_t inter = v.intermediate_size;
  const std::string t = "vision_tower.";
  list.add(t + "patch_embedder.input_proj.weight",
           {h, v.num_channels * v.patch_size * v.patch_size}, ctx.dtype);
  list.add(t + "patch_embedder.position_embedding_table", {2, v.num_position_embeddings, h},
           ctx.dtype);
  list.add(t + "encoder.rotary_emb.inv_freq", {h / v.num_attention_heads / 4}, DType::kFloat32);
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string layer = t + "encoder.layers." + std::to_string(i);
    for (const char* proj : {".q_proj", ".k_proj", ".v_proj", ".o_proj"}) {
      list.add(layer + ".self_attn" + proj + ".linear.weight", {h, h}, ctx.dtype);
    }
    list.add(layer + ".self_attn.q_norm.weight", {h / v.num_attention_heads}, ctx.dtype);
    list.add(layer + ".self_attn.k_norm.weight", {h / v.num_attention_heads}, ctx.dtype);
    list.add(layer + ".mlp.gate_proj.linear.weight", {inter, h}, ctx.dtype);
    list.add(layer + ".mlp.up_proj.linear.weight", {inter, h}, ctx.dtype);
    list.add(layer + ".mlp.down_proj.linear.weight", {h, inter}, ctx.dtype);
    for (const char* norm : {".input_layernorm", ".post_attention_layernorm",
                             ".pre_feedforward_layernorm", ".post_feedforward_layernorm"}) {
      list.add(layer + norm + ".weight", {h}, ctx.dtype);
    }
  }
  if (v.standardize) {
    list.add(t + "std_bias", {h}, ctx.dtype);
    list.add(t + "std_scale", {h}, ctx.dtype);
  }
  list.add("embed_vision.embedding_projection.weight", {ctx.arch.hidden_size, h}, ctx.dtype);
  return Status::ok_status();
}

// Kimi-K2.5's MoonViT in SGLang: sglang models/kimi_k25.py (read at 00a239e5) builds it on
// every launch, unquantized for a compressed-tensors checkpoint; kimi_vl_moonvit.py's blocks
// shard attention over the attention TP group (VisionAttention: a biased QKVParallelLinear
// qkv_proj and RowParallelLinear proj) and keep the MLP (MLP2: nn.Linear fc0 and fc1) whole, as
// are the patch Conv2d, the position table, the norms and the projector (a LayerNorm and two
// ReplicatedLinears). Its rotary table (freqs_cis, 72 MiB) is made at the first image, the
// warm-up request after the KV pool is sized.
Status add_moon_vit(TensorList& list, const BuildContext& ctx) {
  const VisionTower& v = ctx.arch.vision;
  const std::int64_t h = v.hidden_size;
  const std::int64_t inter = v.intermediate_size;
  const std::int64_t m = h * v.spatial_merge_size * v.spatial_merge_size;
  const int attn_tp = attention_tp_size(ctx.layout);
  if (v.num_attention_heads % attn_tp != 0) {
    return not_divisible(ctx, "attention heads", v.num_attention_heads, attn_tp);
  }
  const std::string t = "vision_tower.";
  list.add(t + "patch_embed.proj.weight", {h, v.num_channels, v.patch_size, v.patch_size},
           ctx.dtype);
  list.add(t + "patch_embed.proj.bias", {h}, ctx.dtype);
  list.add(t + "patch_embed.pos_emb.weight", {v.position_rows, v.position_columns, h}, ctx.dtype);
  const auto dense = [&](const std::string& module, std::int64_t out, std::int64_t in,
                         std::int64_t bias) {
    list.add(module + ".weight", {out, in}, ctx.dtype);
    list.add(module + ".bias", {bias}, ctx.dtype);
  };
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string b = t + "encoder.blocks." + std::to_string(i);
    add_layer_norm(list, ctx, b + ".norm0", h);
    add_layer_norm(list, ctx, b + ".norm1", h);
    dense(b + ".attn.qkv_proj", 3 * h / attn_tp, h, 3 * h / attn_tp);
    dense(b + ".attn.proj", h, h / attn_tp, h);
    dense(b + ".mlp.fc0", inter, h, inter);
    dense(b + ".mlp.fc1", h, inter, h);
  }
  add_layer_norm(list, ctx, t + "encoder.final_layernorm", h);
  add_layer_norm(list, ctx, "mm_projector.pre_norm", h);
  dense("mm_projector.linear_1", m, m, m);
  dense("mm_projector.linear_2", v.out_hidden_size, m, v.out_hidden_size);
  return Status::ok_status();
}

// GLM-4.1V's and GLM-4.5V's tower as SGLang builds it (glm4v.py Glm4vVisionModel; vLLM's plan
// refuses its profile): the biased patch Conv3d, the position table, the norms, the Conv2d
// downsample and the merger's LayerNorm whole on every rank; per block qkv column-parallel
// (12 heads over the attention TP group, biased with attention_bias), proj row-parallel, the
// gated MLP of out_hidden_size split over TP; the merger's proj replicated (vLLM shards it),
// its gate_up column-parallel and down row-parallel, all without biases.
Status add_glm4v_vit(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load) {
  const VisionTower& v = ctx.arch.vision;
  const int tp = ctx.layout.tp_size;
  const int attn_tp = attention_tp_size(ctx.layout);
  const std::int64_t h = v.hidden_size;
  const std::int64_t o = v.out_hidden_size;
  if (v.num_attention_heads % attn_tp != 0) {
    return not_divisible(ctx, "attention heads", v.num_attention_heads, attn_tp);
  }
  if (o % tp != 0) return not_divisible(ctx, "MLP width", o, tp);
  if (v.intermediate_size % tp != 0) {
    return not_divisible(ctx, "merger width", v.intermediate_size, tp);
  }
  const std::string t = "visual.";
  list.add(t + "patch_embed.proj.weight",
           {h, v.num_channels, v.temporal_patch_size, v.patch_size, v.patch_size}, ctx.dtype);
  list.add(t + "patch_embed.proj.bias", {h}, ctx.dtype);
  list.add(t + "embeddings.position_embedding.weight", {v.num_patches(), h}, ctx.dtype);
  add_norm(list, ctx, t + "post_conv_layernorm.weight", h);
  const std::int64_t rows = v.num_attention_heads / attn_tp * (h / v.num_attention_heads);
  const auto gated = [&](const std::string& prefix, const std::string& checkpoint, std::int64_t in,
                         std::int64_t width) -> Status {
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {prefix + ".gate_up_proj",
                                       {checkpoint + ".gate_proj", checkpoint + ".up_proj"},
                                       {width / tp, width / tp},
                                       in,
                                       LinearParallel::kColumn,
                                       tp,
                                       false},
                                      post_load));
    return add_linear(list, ctx,
                      {prefix + ".down_proj",
                       {checkpoint + ".down_proj"},
                       {in},
                       width / tp,
                       LinearParallel::kRow,
                       tp,
                       false},
                      post_load);
  };
  for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
    const std::string b = t + "blocks." + std::to_string(i);
    add_norm(list, ctx, b + ".norm1.weight", h);
    add_norm(list, ctx, b + ".norm2.weight", h);
    GPUMEM_RETURN_IF_ERROR(add_fused_qkv_attention(list, ctx, post_load, b + ".attn", h, rows,
                                                   attn_tp, v.qkv_bias, false));
    GPUMEM_RETURN_IF_ERROR(gated(b + ".mlp", b + ".mlp", h, o));
  }
  add_norm(list, ctx, t + "post_layernorm.weight", h);
  list.add(t + "downsample.weight", {o, h, v.spatial_merge_size, v.spatial_merge_size}, ctx.dtype);
  list.add(t + "downsample.bias", {o}, ctx.dtype);
  GPUMEM_RETURN_IF_ERROR(add_linear(
      list, ctx,
      {t + "merger.proj", {t + "merger.proj"}, {o}, o, LinearParallel::kReplicated, 1, false},
      post_load));
  add_layer_norm(list, ctx, t + "merger.post_projection_norm", o);
  return gated(t + "merger", t + "merger", o, v.intermediate_size);
}

}  // namespace

Status add_vision_tower(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load) {
  switch (ctx.arch.vision.kind) {
    case VisionKind::kSiglip:
      return add_siglip(list, ctx, post_load);
    case VisionKind::kQwen2Vit:
    case VisionKind::kQwen25Vit:
    case VisionKind::kQwen3Vit:
      return add_qwen_vit(list, ctx, post_load);
    case VisionKind::kClip:
      return add_clip(list, ctx, post_load);
    case VisionKind::kGemma4Vit:
      // SGLang's plan refuses Gemma 4 (sglang/plan.cc).
      return add_gemma4_vit(list, ctx);
    case VisionKind::kMoonVit:
      // vLLM's plan builds no MoonViT: it refuses the encoder profile or drops the tower.
      return add_moon_vit(list, ctx);
    case VisionKind::kGlm4vVit:
      // vLLM's plan refuses GLM-V's encoder profile (vllm/plan.cc).
      return add_glm4v_vit(list, ctx, post_load);
    case VisionKind::kPixtral:
      // vLLM's plan drops a Pixtral tower it does not build and refuses one it would profile
      // (vllm/plan.cc): only SGLang's is built.
      return add_pixtral(list, ctx, post_load);
    case VisionKind::kLlama4Vit:
      // SGLang's plan refuses it (sglang/plan_checks.cc check_llama4); vLLM's plan drops a
      // tower it does not build and refuses one it would profile (vllm/plan.cc).
      return invalid_input(ctx.arch.hf_architecture + "'s vision tower is not modelled");
    case VisionKind::kNone:
      break;
  }
  return Status::ok_status();
}

}  // namespace gpumem
