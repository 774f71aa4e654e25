#include "weights/linear_attention_weights.h"

#include "weights/linear_weights.h"

namespace gpumem {

namespace {

// out_proj of both mixers: a RowParallelLinear from this rank's inner width to the hidden size.
Status add_out_proj(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                    std::int64_t inner, int tp, PostLoadSteps& post_load) {
  return add_linear(list, ctx,
                    {prefix + ".out_proj",
                     {prefix + ".out_proj"},
                     {ctx.arch.hidden_size},
                     inner,
                     LinearParallel::kRow,
                     tp,
                     false},
                    post_load);
}

}  // namespace

Status add_gated_delta_net(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                           PostLoadSteps& post_load) {
  const Architecture& a = ctx.arch;
  const LinearAttentionConfig& g = a.linear;
  const int tp = attention_tp_size(ctx.layout);
  // sglang qwen3_next.py Qwen3GatedDeltaNet.__init__: ColumnParallelLinear outputs and the
  // per-head dt_bias / A_log are divided by the attention TP size, head by head.
  if (g.num_key_heads % tp != 0 || g.num_value_heads % tp != 0) {
    return invalid_input(prefix + ": " + std::to_string(g.num_key_heads) + " key heads and " +
                         std::to_string(g.num_value_heads) +
                         " value heads of the linear attention do not split over the attention "
                         "tensor-parallel size " +
                         std::to_string(tp));
  }
  const std::int64_t key_dim = g.key_dim() / tp;
  const std::int64_t value_dim = g.value_dim() / tp;
  const std::int64_t v_heads = g.num_value_heads / tp;
  // conv1d: a ColumnParallelLinear(kernel -> conv_dim) built without quantization, its weight
  // unsqueezed to [conv_dim / tp, 1, kernel]; no bias.
  list.add(prefix + ".conv1d.weight", {g.conv_dim() / tp, 1, g.conv_kernel}, ctx.dtype);
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {prefix + ".in_proj_qkvz",
                                     {prefix + ".in_proj_qkvz"},
                                     {2 * key_dim + 2 * value_dim},
                                     a.hidden_size,
                                     LinearParallel::kColumn,
                                     tp,
                                     false},
                                    post_load));
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {prefix + ".in_proj_ba",
                                     {prefix + ".in_proj_ba"},
                                     {2 * v_heads},
                                     a.hidden_size,
                                     LinearParallel::kColumn,
                                     tp,
                                     false},
                                    post_load));
  // dt_bias in the default (served) dtype; A_log explicitly float32.
  list.add(prefix + ".dt_bias", {v_heads}, ctx.dtype);
  list.add(prefix + ".A_log", {v_heads}, DType::kFloat32);
  // fla layernorm_gated.py RMSNorm(head_v_dim, dtype=config.torch_dtype): weight only.
  list.add(prefix + ".norm.weight", {g.value_head_dim}, a.dtype);
  return add_out_proj(list, ctx, prefix, value_dim, tp, post_load);
}

Status add_mamba2_mixer(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                        PostLoadSteps& post_load) {
  const Architecture& a = ctx.arch;
  const LinearAttentionConfig& g = a.linear;
  const int tp = attention_tp_size(ctx.layout);
  // MambaMixer2.__init__: heads split over TP; groups too, or one group copied to every rank
  // (extra_groups_for_head_shards).
  if (g.num_value_heads % tp != 0 || (g.num_key_heads % tp != 0 && g.num_key_heads != 1)) {
    return invalid_input(
        prefix + ": " + std::to_string(g.num_value_heads) + " heads and " +
        std::to_string(g.num_key_heads) +
        " groups of the Mamba-2 mixer do not split over the tensor-parallel size " +
        std::to_string(tp));
  }
  const std::int64_t groups = g.num_key_heads % tp == 0 ? g.num_key_heads / tp : 1;
  const std::int64_t inner = g.value_dim() / tp;
  const std::int64_t heads = g.num_value_heads / tp;
  const std::int64_t conv_dim = inner + 2 * groups * g.key_head_dim;
  // conv1d: a ColumnParallelLinear(kernel -> conv_dim) unsqueezed to [conv_dim, 1, kernel].
  list.add(prefix + ".conv1d.weight", {conv_dim, 1, g.conv_kernel}, ctx.dtype);
  if (g.conv_bias) list.add(prefix + ".conv1d.bias", {conv_dim}, ctx.dtype);
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {prefix + ".in_proj",
                                     {prefix + ".in_proj"},
                                     {inner + conv_dim + heads},
                                     a.hidden_size,
                                     LinearParallel::kColumn,
                                     tp,
                                     false},
                                    post_load));
  list.add(prefix + ".dt_bias", {heads}, ctx.dtype);
  list.add(prefix + ".A", {heads}, DType::kFloat32);
  list.add(prefix + ".D", {heads}, ctx.dtype);
  // Mixer2RMSNormGated: this rank's share of the inner width.
  list.add(prefix + ".norm.weight", {inner}, ctx.dtype);
  return add_out_proj(list, ctx, prefix, inner, tp, post_load);
}

}  // namespace gpumem
