#include "catalog/hf_granite_hybrid.h"

#include <string>
#include <vector>

namespace gpumem {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

// The largest Mamba-2 dimension gpumem reads: real configs have tens to a few hundred heads of
// 64, a state of 128 and a kernel of 4; the bound keeps the state's byte count far inside 64 bits.
constexpr std::int64_t kMaxMambaDimension = 1024;

std::int64_t bounded(const ConfigMap& text, std::string_view key,
                     std::optional<std::int64_t> fallback = std::nullopt) {
  const std::int64_t v = text.positive(key, fallback);
  if (v > kMaxMambaDimension) {
    text.error(key, "'" + std::string(key) + "' " + str(v) +
                        " is more than gpumem reads for a Mamba-2 dimension (1024)");
    return 0;
  }
  return v;
}

// sglang and vllm granitemoehybrid.py pick each layer's class by config.layer_types[i]
// ("mamba" or "attention"). Without the key transformers makes every layer Mamba and SGLang's
// config every sixth attention, so it is required.
void parse_layer_kinds(const ConfigMap& text, Architecture& a) {
  a.layer_types.assign(static_cast<size_t>(a.num_hidden_layers), LayerAttention::kFull);
  std::optional<std::vector<std::string>> types = text.strings("layer_types");
  if (!types) {
    if (!text.has("layer_types")) text.missing("layer_types");
    return;
  }
  if (static_cast<std::int64_t>(types->size()) != a.num_hidden_layers) {
    text.error("layer_types", "'layer_types' has " + str(static_cast<std::int64_t>(types->size())) +
                                  " entries but 'num_hidden_layers' is " +
                                  str(a.num_hidden_layers));
    return;
  }
  for (size_t i = 0; i < types->size(); ++i) {
    const std::string& t = (*types)[i];
    if (t == "mamba") {
      a.layer_types[i] = LayerAttention::kLinear;
    } else if (t != "attention") {
      text.error("layer_types", "unknown layer type '" + t + "'; expected mamba or attention");
      return;
    }
  }
}

// transformers GraniteMoeHybridConfig: mamba_d_head "auto" is mamba_expand x hidden /
// mamba_n_heads, and the heads must tile that width exactly (a ValueError otherwise).
void parse_mixer(const ConfigMap& text, Architecture& a) {
  LinearAttentionConfig& l = a.linear;
  l.kind = LinearKind::kMamba2;
  l.num_key_heads = bounded(text, "mamba_n_groups", 1);
  l.num_value_heads = bounded(text, "mamba_n_heads");
  l.key_head_dim = bounded(text, "mamba_d_state");
  l.conv_kernel = bounded(text, "mamba_d_conv", 4);
  l.conv_bias = text.boolean("mamba_conv_bias").value_or(true);
  const std::int64_t expand = text.positive("mamba_expand", 2);
  const std::int64_t inner = expand * a.hidden_size;
  if (text.string("mamba_d_head").value_or("") == "auto") {
    l.value_head_dim = l.num_value_heads > 0 ? inner / l.num_value_heads : 0;
  } else {
    l.value_head_dim = bounded(text, "mamba_d_head");
  }
  if (l.num_value_heads > 0 && l.value_head_dim * l.num_value_heads != inner) {
    text.error("mamba_d_head", "'mamba_d_head' " + str(l.value_head_dim) + " x 'mamba_n_heads' " +
                                   str(l.num_value_heads) + " is not 'mamba_expand' x " +
                                   "'hidden_size' (" + str(inner) + ")");
  }
  // sglang and vllm MambaMixer2: in_proj and out_proj take bias=mamba_proj_bias; gpumem's
  // mixer (linear_attention_weights.cc) builds them without.
  if (text.boolean("mamba_proj_bias").value_or(false)) {
    text.error("mamba_proj_bias", "'mamba_proj_bias' true is not modelled");
  }
}

}  // namespace

void parse_granite_hybrid(const ConfigMap& text, Architecture& a) {
  parse_layer_kinds(text, a);
  parse_mixer(text, a);
  // sglang and vllm granitemoehybrid.py: GraniteMoeMoE (a ReplicatedLinear gate, then FusedMoE
  // of intermediate_size) when num_local_experts > 0; GraniteMoeSharedMLP of
  // shared_intermediate_size when that is not 0. Both keys' defaults differ between
  // transformers (8, 1024) and SGLang's config class (0, 8192): required.
  const std::optional<std::int64_t> experts = text.integer("num_local_experts");
  if (!experts) {
    if (!text.has("num_local_experts")) text.missing("num_local_experts");
  } else if (*experts != 0) {
    a.moe.num_experts = text.positive("num_local_experts");
    a.moe.experts_per_token = text.positive("num_experts_per_tok");
    a.moe.moe_intermediate_size = a.intermediate_size;
  }
  const std::optional<std::int64_t> shared = text.integer("shared_intermediate_size");
  if (!shared) {
    if (!text.has("shared_intermediate_size")) text.missing("shared_intermediate_size");
  } else if (*shared != 0) {
    a.moe.shared_expert_intermediate_size = text.positive("shared_intermediate_size");
  }
}

}  // namespace gpumem
