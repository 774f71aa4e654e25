#include "catalog/hf_mamba.h"

#include <string>

namespace gpumem {

std::int64_t bounded_mamba_dimension(const ConfigMap& text, std::string_view key, std::int64_t v) {
  constexpr std::int64_t kMaxMambaDimension = 65536;
  if (v > kMaxMambaDimension) {
    text.error(key, "'" + std::string(key) + "' gives a Mamba dimension of " + std::to_string(v) +
                        ", more than gpumem reads (65536)");
    return 0;
  }
  return v;
}

namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

std::int64_t bounded(const ConfigMap& text, std::string_view key, std::int64_t v) {
  return bounded_mamba_dimension(text, key, v);
}

// The inner width the engines build: vllm mamba2.py and mamba.py pass config.intermediate_size
// (Mamba2: getattr(config, "intermediate_size", expand * hidden_size)).
std::int64_t inner_width(const ConfigMap& text, const Architecture& a) {
  if (text.has("intermediate_size")) {
    return bounded(text, "intermediate_size", text.positive("intermediate_size"));
  }
  return bounded(text, "expand", text.positive("expand", 2) * a.hidden_size);
}

// vllm mamba2.py Mamba2DecoderLayer: MambaMixer2(intermediate_size, n_groups, num_heads,
// head_dim, state_size, conv_kernel, use_conv_bias, use_bias); its state is (heads, head_dim,
// state) per layer, so the inner width must be heads x head_dim.
void parse_mamba2_mixer(const ConfigMap& text, Architecture& a) {
  LinearAttentionConfig& l = a.linear;
  l.kind = LinearKind::kMamba2;
  l.num_key_heads = bounded(text, "n_groups", text.positive("n_groups", 1));
  l.num_value_heads = bounded(text, "num_heads", text.positive("num_heads", 128));
  l.value_head_dim = bounded(text, "head_dim", text.positive("head_dim", 64));
  l.key_head_dim = bounded(text, "state_size", text.positive("state_size", 128));
  const std::int64_t inner = inner_width(text, a);
  if (l.num_value_heads > 0 && l.value_head_dim > 0 && inner > 0 && inner != l.value_dim()) {
    text.error(text.has("intermediate_size") ? "intermediate_size" : "expand",
               "the Mamba-2 inner width " + str(inner) + " is not 'num_heads' x 'head_dim' (" +
                   str(l.num_value_heads) + " x " + str(l.value_head_dim) +
                   "); gpumem models mixers whose heads span the inner width");
  }
}

// vllm mamba.py MambaDecoderLayer: MambaMixer(hidden, state_size, conv_kernel,
// intermediate_size, time_step_rank, use_conv_bias, use_bias, use_rms_norm=is_falcon_mamba,
// rms_norm_has_weight=not is_falcon_mamba): Falcon-Mamba normalizes dt, B and C without
// weights, plain Mamba not at all. time_step_rank "auto" is ceil(hidden / 16) (transformers
// MambaConfig).
void parse_mamba1_mixer(const ConfigMap& text, Architecture& a) {
  LinearAttentionConfig& l = a.linear;
  l.kind = LinearKind::kMamba1;
  l.num_key_heads = 0;
  l.value_head_dim = 1;
  l.num_value_heads = inner_width(text, a);
  l.key_head_dim = bounded(text, "state_size", text.positive("state_size", 16));
  if (text.string("time_step_rank").value_or("auto") == "auto") {
    l.time_step_rank = (a.hidden_size + 15) / 16;
  } else {
    l.time_step_rank = bounded(text, "time_step_rank", text.positive("time_step_rank"));
  }
  l.dt_bc_norm_weights = false;
}

}  // namespace

void parse_mamba_stack(const ConfigMap& text, Architecture& a) {
  const bool mamba2 = a.hf_architecture == "Mamba2ForCausalLM";
  a.hidden_size = text.positive("hidden_size");
  a.num_hidden_layers = text.positive("num_hidden_layers");
  // transformers Mamba2Config (32,768) and MambaConfig (50,280) defaults.
  a.vocab_size = text.positive("vocab_size", mamba2 ? 32768 : 50280);
  // The configs carry no context length; both engines then take 2,048 (vllm config/model.py
  // _get_and_verify_max_len's default_max_len, sglang hf_transformers_utils.py
  // get_context_length).
  a.max_position_embeddings = text.positive("max_position_embeddings", 2048);
  // Mamba2Config declares tie_word_embeddings False; MambaConfig and FalconMambaConfig do not,
  // so PretrainedConfig's True applies (vllm mamba.py then uses the embeddings as the head).
  a.tie_word_embeddings = text.boolean("tie_word_embeddings").value_or(!mamba2);
  a.single_module_layers = true;
  a.rotary_dim = 0;
  if (mamba2) {
    parse_mamba2_mixer(text, a);
  } else {
    parse_mamba1_mixer(text, a);
  }
  LinearAttentionConfig& l = a.linear;
  l.conv_kernel = bounded(text, "conv_kernel", text.positive("conv_kernel", 4));
  l.conv_bias = text.boolean("use_conv_bias").value_or(true);
  if (a.num_hidden_layers > 0) {
    a.layer_types.assign(static_cast<size_t>(a.num_hidden_layers), LayerAttention::kLinear);
  }
  // gpumem builds in_proj and out_proj without the bias the mixers give them under use_bias.
  if (text.boolean("use_bias").value_or(false)) {
    text.error("use_bias", "'use_bias' true (biased in_proj and out_proj) is not modelled");
  }
  if (text.has("quantization_config")) {
    text.error("quantization_config",
               "a quantized " + a.hf_architecture + " checkpoint is not modelled");
  }
}

}  // namespace gpumem
