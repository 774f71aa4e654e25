// The linear-attention and state-space mixers of a checkpoint (checkpoint_builder.h).
#include "weights/checkpoint_builder.h"

namespace gpumem {

// HF Qwen3NextGatedDeltaNet (and Qwen3_5GatedDeltaNet): the projections, the depthwise conv1d
// ([channels, 1, kernel]), dt_bias and A_log per value head, the gated norm and out_proj; all
// stored in the checkpoint dtype.
Status CheckpointBuilder::gated_delta_net(const std::string& p) {
  const LinearAttentionConfig& g = a_.linear;
  const std::int64_t h = a_.hidden_size;
  if (a_.family == ArchitectureFamily::kQwen35) {
    // HF Qwen3_5GatedDeltaNet stores q/k/v, z, b and a apart.
    GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_qkv", 2 * g.key_dim() + g.value_dim(), h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_z", g.value_dim(), h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_b", g.num_value_heads, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_a", g.num_value_heads, h, false));
  } else {
    GPUMEM_RETURN_IF_ERROR(
        linear(p + ".in_proj_qkvz", 2 * g.key_dim() + 2 * g.value_dim(), h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_ba", 2 * g.num_value_heads, h, false));
  }
  add(p + ".conv1d.weight", {g.conv_dim(), 1, g.conv_kernel}, dtype_);
  add(p + ".dt_bias", {g.num_value_heads}, dtype_);
  add(p + ".A_log", {g.num_value_heads}, dtype_);
  norm(p + ".norm", g.value_head_dim);
  return linear(p + ".out_proj", h, g.value_dim(), false);
}

// Kimi Linear's KimiDeltaAttention as its checkpoint stores it (vllm layers/kda.py names):
// q/k/v projections and their depthwise convolutions ([channels, 1, kernel]), the low-rank
// forget and output gates, b_proj, A_log ([1, 1, heads, 1]) and dt_bias in float32 (the
// published total_size of Kimi-Linear-48B-A3B holds exactly these two in float32), o_norm,
// o_proj.
Status CheckpointBuilder::kimi_delta_attention(const std::string& p) {
  const LinearAttentionConfig& g = a_.linear;
  const std::int64_t h = a_.hidden_size;
  const std::int64_t width = g.value_dim();
  const std::int64_t d = g.value_head_dim;
  for (const char* x : {"q", "k", "v"}) {
    GPUMEM_RETURN_IF_ERROR(linear(p + "." + x + "_proj", width, h, false));
    add(p + "." + x + "_conv1d.weight", {width, 1, g.conv_kernel}, dtype_);
  }
  for (const char* x : {".f", ".g"}) {
    GPUMEM_RETURN_IF_ERROR(linear(p + x + "_a_proj", d, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + x + "_b_proj", width, d, false));
  }
  GPUMEM_RETURN_IF_ERROR(linear(p + ".b_proj", g.num_value_heads, h, false));
  add(p + ".A_log", {1, 1, g.num_value_heads, 1}, DType::kFloat32);
  add(p + ".dt_bias", {width}, DType::kFloat32);
  norm(p + ".o_norm", d);
  return linear(p + ".o_proj", h, width, false);
}

// HF NemotronHMamba2Mixer: in_proj (z, x, B, C, dt), the depthwise conv1d with its bias,
// A_log, D and dt_bias per head, the gated norm and out_proj.
Status CheckpointBuilder::mamba2_mixer(const std::string& p) {
  const LinearAttentionConfig& g = a_.linear;
  const std::int64_t h = a_.hidden_size;
  const std::int64_t conv_dim = g.value_dim() + 2 * g.num_key_heads * g.key_head_dim;
  GPUMEM_RETURN_IF_ERROR(
      linear(p + ".in_proj", g.value_dim() + conv_dim + g.num_value_heads, h, false));
  add(p + ".conv1d.weight", {conv_dim, 1, g.conv_kernel}, dtype_);
  if (g.conv_bias) add(p + ".conv1d.bias", {conv_dim}, dtype_);
  for (const char* n : {".A_log", ".D", ".dt_bias"}) add(p + n, {g.num_value_heads}, dtype_);
  norm(p + ".norm", g.value_dim());
  return linear(p + ".out_proj", h, g.value_dim(), false);
}

// HF MambaMixer: in_proj (x and z), the depthwise conv1d with its bias, x_proj (dt, B, C),
// dt_proj with its bias, A_log [inner, state], D and out_proj; Jamba's dt/B/C norms aside.
Status CheckpointBuilder::mamba1_mixer(const std::string& p) {
  const LinearAttentionConfig& g = a_.linear;
  const std::int64_t h = a_.hidden_size;
  const std::int64_t inner = g.value_dim();
  GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj", 2 * inner, h, false));
  add(p + ".conv1d.weight", {inner, 1, g.conv_kernel}, dtype_);
  if (g.conv_bias) add(p + ".conv1d.bias", {inner}, dtype_);
  GPUMEM_RETURN_IF_ERROR(
      linear(p + ".x_proj", g.time_step_rank + 2 * g.key_head_dim, inner, false));
  GPUMEM_RETURN_IF_ERROR(linear(p + ".dt_proj", inner, g.time_step_rank, true));
  add(p + ".A_log", {inner, g.key_head_dim}, dtype_);
  add(p + ".D", {inner}, dtype_);
  return linear(p + ".out_proj", h, inner, false);
}

// A NemotronH or Mamba layer ("backbone.layers.<i>"): one mixer (Mamba, attention or MLP) and
// its norm.
Status CheckpointBuilder::single_module_layer(const std::string& prefix, std::int64_t i) {
  const std::string mixer = prefix + ".mixer";
  if (a_.is_linear_layer(i) && a_.linear.kind == LinearKind::kMamba1) {
    GPUMEM_RETURN_IF_ERROR(mamba1_mixer(mixer));
  } else if (a_.is_linear_layer(i)) {
    GPUMEM_RETURN_IF_ERROR(mamba2_mixer(mixer));
  } else if (a_.has_mlp(i)) {
    GPUMEM_RETURN_IF_ERROR(gated_mlp(mixer, a_.intermediate_size));
  } else {
    GPUMEM_RETURN_IF_ERROR(attention(mixer));
  }
  norm(prefix + ".norm", a_.hidden_size);
  return Status::ok_status();
}

}  // namespace gpumem
