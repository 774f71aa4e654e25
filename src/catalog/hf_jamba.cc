#include "catalog/hf_jamba.h"

#include <string>

#include "catalog/hf_mamba.h"

namespace gpumem {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

std::int64_t bounded(const ConfigMap& text, std::string_view key, std::int64_t v) {
  return bounded_mamba_dimension(text, key, v);
}

// transformers JambaConfig._check_supported_offset: an offset must be below its period.
std::int64_t offset_within(const ConfigMap& text, std::string_view period_key, std::int64_t period,
                           std::string_view offset_key, std::int64_t fallback) {
  const std::optional<std::int64_t> offset = text.integer(offset_key);
  const std::int64_t v = offset.value_or(fallback);
  if (period > 0 && (v < 0 || v >= period)) {
    text.error(offset_key, "ValueError: " + std::string(offset_key) + " (" + str(v) +
                               ") must be smaller than " + std::string(period_key) + " (" +
                               str(period) + ")");
  }
  return v;
}

// transformers JambaConfig.layers_block_type: layer i attends when i % attn_layer_period ==
// attn_layer_offset, else it is a Mamba layer. vllm jamba.py JambaAttentionDecoderLayer builds
// no rotary embedding and no sliding window, whatever sliding_window says.
void parse_layer_kinds(const ConfigMap& text, Architecture& a) {
  const std::int64_t period = text.positive("attn_layer_period", 8);
  const std::int64_t offset =
      offset_within(text, "attn_layer_period", period, "attn_layer_offset", 4);
  a.layer_types.assign(static_cast<size_t>(a.num_hidden_layers), LayerAttention::kLinear);
  if (period <= 0) return;
  for (std::int64_t i = 0; i < a.num_hidden_layers; ++i) {
    if (i % period == offset) a.layer_types[static_cast<size_t>(i)] = LayerAttention::kFull;
  }
}

// vllm layers/mamba/mamba_mixer.py MambaMixer as jamba.py JambaMambaDecoderLayer builds it:
// intermediate_size = mamba_expand x hidden, ssm_state_size = mamba_d_state, conv_kernel_size =
// mamba_d_conv, time_step_rank = mamba_dt_rank ("auto": ceil(hidden / 16), transformers
// JambaConfig), conv bias mamba_conv_bias, in_proj/out_proj bias mamba_proj_bias.
void parse_mixer(const ConfigMap& text, Architecture& a) {
  LinearAttentionConfig& l = a.linear;
  l.kind = LinearKind::kMamba1;
  l.num_key_heads = 0;
  l.value_head_dim = 1;
  l.num_value_heads =
      bounded(text, "mamba_expand", text.positive("mamba_expand", 2) * a.hidden_size);
  l.key_head_dim = bounded(text, "mamba_d_state", text.positive("mamba_d_state", 16));
  l.conv_kernel = bounded(text, "mamba_d_conv", text.positive("mamba_d_conv", 4));
  l.conv_bias = text.boolean("mamba_conv_bias").value_or(true);
  l.dt_bc_norm_weights = true;
  if (text.string("mamba_dt_rank").value_or("auto") == "auto") {
    l.time_step_rank = (a.hidden_size + 15) / 16;
  } else {
    l.time_step_rank = bounded(text, "mamba_dt_rank", text.positive("mamba_dt_rank"));
  }
  // gpumem's Mamba-1 mixer (linear_attention_weights.cc) builds in_proj and out_proj without
  // the bias MambaMixer gives them under mamba_proj_bias.
  if (text.boolean("mamba_proj_bias").value_or(false)) {
    text.error("mamba_proj_bias", "'mamba_proj_bias' true is not modelled");
  }
}

// transformers JambaConfig.layers_num_experts: num_experts on every expert_layer_period-th layer
// from expert_layer_offset, one elsewhere; vllm jamba.py builds JambaMoE (a replicated router,
// FusedMoE of intermediate_size, no renormalization) where that count is above one and the
// dense JambaMLP of the same width elsewhere.
void parse_experts(const ConfigMap& text, Architecture& a) {
  const std::int64_t period = text.positive("expert_layer_period", 2);
  const std::int64_t offset =
      offset_within(text, "expert_layer_period", period, "expert_layer_offset", 1);
  const std::int64_t experts = text.positive("num_experts", 16);
  if (experts <= 1 || period <= 0) return;
  MoeConfig& m = a.moe;
  m.num_experts = experts;
  m.experts_per_token = text.positive("num_experts_per_tok", 2);
  m.moe_intermediate_size = a.intermediate_size;
  for (std::int64_t i = 0; i < a.num_hidden_layers; ++i) {
    if (i % period != offset) m.mlp_only_layers.push_back(i);
  }
}

}  // namespace

void parse_jamba(const ConfigMap& text, Architecture& a) {
  parse_layer_kinds(text, a);
  parse_mixer(text, a);
  parse_experts(text, a);
  // vllm jamba.py builds the Mamba mixer's projections through quant_config in releases whose
  // choice of the quantized ones no stored source pins down.
  if (text.has("quantization_config")) {
    text.error("quantization_config", "a quantized JambaForCausalLM checkpoint is not modelled");
  }
}

}  // namespace gpumem
