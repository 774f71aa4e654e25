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

Status not_divisible(const std::string& what, std::int64_t n, int tp) {
  return invalid_input("the vision tower's " + what + " (" + std::to_string(n) +
                       ") is not divisible by the tensor-parallel size " + std::to_string(tp));
}

}  // namespace

Status add_vision_tower(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load) {
  const VisionTower& v = ctx.arch.vision;
  const int tp = ctx.layout.tp_size;
  const int attn_tp = attention_tp_size(ctx.layout);
  const std::string tower = "vision_tower.vision_model";
  if (v.num_attention_heads % attn_tp != 0) {
    return not_divisible("attention heads", v.num_attention_heads, attn_tp);
  }
  if (v.intermediate_size % tp != 0) {
    return not_divisible("intermediate size", v.intermediate_size, tp);
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
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {attn + ".qkv_proj",
                                       {attn + ".q_proj", attn + ".k_proj", attn + ".v_proj"},
                                       {heads * head_dim, heads * head_dim, heads * head_dim},
                                       v.hidden_size,
                                       LinearParallel::kColumn,
                                       attn_tp,
                                       true},
                                      post_load));
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {attn + ".proj",
                                       {attn + ".out_proj"},
                                       {v.hidden_size},
                                       heads * head_dim,
                                       LinearParallel::kRow,
                                       attn_tp,
                                       true},
                                      post_load));
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

}  // namespace gpumem
