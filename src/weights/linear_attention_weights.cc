#include "weights/linear_attention_weights.h"

#include "weights/layer_weights.h"
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

Status add_mamba1_mixer(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                        PostLoadSteps& post_load) {
  const Architecture& a = ctx.arch;
  const LinearAttentionConfig& g = a.linear;
  const int tp = attention_tp_size(ctx.layout);
  // MambaMixer.__init__: every projection splits the inner width over TP.
  if (g.value_dim() % tp != 0) {
    return invalid_input(prefix + ": the Mamba-1 mixer's inner width " +
                         std::to_string(g.value_dim()) +
                         " does not split over the tensor-parallel size " + std::to_string(tp));
  }
  const std::int64_t inner = g.value_dim() / tp;
  const std::int64_t state = g.key_head_dim;
  const std::int64_t rank = g.time_step_rank;
  // conv1d: a ColumnParallelLinear(kernel -> inner) unsqueezed to [inner, 1, kernel].
  list.add(prefix + ".conv1d.weight", {inner, 1, g.conv_kernel}, ctx.dtype);
  if (g.conv_bias) list.add(prefix + ".conv1d.bias", {inner}, ctx.dtype);
  // in_proj: a MergedColumnParallelLinear yielding x and z.
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {prefix + ".in_proj",
                                     {prefix + ".in_proj"},
                                     {inner, inner},
                                     a.hidden_size,
                                     LinearParallel::kColumn,
                                     tp,
                                     false},
                                    post_load));
  // x_proj: a RowParallelLinear from this rank's channels to dt, B and C (all-reduced).
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {prefix + ".x_proj",
                                     {prefix + ".x_proj"},
                                     {rank + 2 * state},
                                     inner,
                                     LinearParallel::kRow,
                                     tp,
                                     false},
                                    post_load));
  // dt_proj: a ColumnParallelLinear(rank -> inner) with its bias.
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {prefix + ".dt_proj",
                                     {prefix + ".dt_proj"},
                                     {inner},
                                     rank,
                                     LinearParallel::kColumn,
                                     tp,
                                     true},
                                    post_load));
  // A explicitly float32 (loaded as -exp(A_log)), D in the default dtype.
  list.add(prefix + ".A", {inner, state}, DType::kFloat32);
  list.add(prefix + ".D", {inner}, ctx.dtype);
  GPUMEM_RETURN_IF_ERROR(add_out_proj(list, ctx, prefix, inner, tp, post_load));
  // use_rms_norm with rms_norm_has_weight (Jamba): RMSNorms over dt's rank and over B's and
  // C's state, replicated; Falcon-Mamba's hold no weight.
  if (g.dt_bc_norm_weights) {
    add_norm(list, ctx, prefix + ".dt_layernorm.weight", rank);
    add_norm(list, ctx, prefix + ".b_layernorm.weight", state);
    add_norm(list, ctx, prefix + ".c_layernorm.weight", state);
  }
  return Status::ok_status();
}

Status add_kimi_delta_attention(TensorList& list, const BuildContext& ctx,
                                const std::string& prefix, PostLoadSteps& post_load) {
  const Architecture& a = ctx.arch;
  const LinearAttentionConfig& g = a.linear;
  const int tp = attention_tp_size(ctx.layout);
  // kda.py KimiDeltaAttention.__init__: assert num_heads % tp_size == 0.
  if (g.num_value_heads % tp != 0) {
    return invalid_input(prefix + ": " + std::to_string(g.num_value_heads) +
                         " heads of the Kimi Delta Attention do not split over the attention "
                         "tensor-parallel size " +
                         std::to_string(tp));
  }
  const std::int64_t width = g.value_dim() / tp;
  const std::int64_t d = g.value_head_dim;
  const std::int64_t h = a.hidden_size;
  const auto column = [&](const std::string& name, std::int64_t out, std::int64_t in) {
    return add_linear(
        list, ctx, {prefix + name, {prefix + name}, {out}, in, LinearParallel::kColumn, tp, false},
        post_load);
  };
  const auto replicated = [&](const std::string& name, std::int64_t out) {
    return add_linear(
        list, ctx,
        {prefix + name, {prefix + name}, {out}, h, LinearParallel::kReplicated, 1, false},
        post_load);
  };
  for (const char* x : {".q_proj", ".k_proj", ".v_proj"}) {
    GPUMEM_RETURN_IF_ERROR(column(x, width, h));
  }
  GPUMEM_RETURN_IF_ERROR(replicated(".f_a_proj", d));
  GPUMEM_RETURN_IF_ERROR(column(".f_b_proj", width, d));
  list.add(prefix + ".dt_bias", {width}, DType::kFloat32);
  GPUMEM_RETURN_IF_ERROR(column(".b_proj", g.num_value_heads / tp, h));
  for (const char* x : {".q_conv1d.weight", ".k_conv1d.weight", ".v_conv1d.weight"}) {
    list.add(prefix + x, {width, 1, g.conv_kernel}, DType::kFloat32);
  }
  list.add(prefix + ".A_log", {1, 1, g.num_value_heads / tp, 1}, DType::kFloat32);
  GPUMEM_RETURN_IF_ERROR(replicated(".g_a_proj", d));
  GPUMEM_RETURN_IF_ERROR(column(".g_b_proj", width, d));
  list.add(prefix + ".o_norm.weight", {d}, ctx.dtype);
  return add_linear(
      list, ctx,
      {prefix + ".o_proj", {prefix + ".o_proj"}, {h}, width, LinearParallel::kRow, tp, false},
      post_load);
}

}  // namespace gpumem
