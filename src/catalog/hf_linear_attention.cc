#include "catalog/hf_linear_attention.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace gpumem {

namespace {

// Each is bounded so that the state's and the projections' byte counts stay far inside 64
// bits (real configs: tens of heads of 128 or 256, a kernel of 4).
constexpr std::int64_t kMaxLinearDimension = 1024;

std::int64_t bounded(const ConfigMap& text, std::string_view key) {
  const std::int64_t v = text.positive(key);
  if (v > kMaxLinearDimension) {
    text.error(key, "'" + std::string(key) + "' " + std::to_string(v) +
                        " is more than gpumem reads for a linear-attention dimension (1024)");
    return 0;
  }
  return v;
}

// mamba_ssm_dtype, where a config gives it (Qwen3.5: float32).
void read_ssm_dtype(const ConfigMap& text, LinearAttentionConfig& l) {
  std::optional<std::string> d = text.string("mamba_ssm_dtype");
  if (!d) return;
  l.ssm_dtype = parse_model_dtype(*d);
  if (!l.ssm_dtype) {
    text.error("mamba_ssm_dtype", "unknown dtype '" + *d +
                                      "' in 'mamba_ssm_dtype'; expected bfloat16, float16 or "
                                      "float32");
  }
}

// NemotronH's MoE layers ('E'): sglang nemotron_h.py NemotronHMoE (PR #12690) and vllm
// nemotron_h.py NemotronHMoE (PR #25863) build a router of n_routed_experts with a float32
// e_score_correction_bias, non-gated relu2 experts of moe_intermediate_size and a non-gated shared
// MLP of n_shared_experts x moe_shared_expert_intermediate_size. Every other layer is listed as
// MLP-only, so Architecture::is_moe_layer holds for the 'E' layers alone.
void parse_nemotron_moe(const ConfigMap& text, const std::vector<std::int64_t>& moe_layers,
                        Architecture& a) {
  MoeConfig& m = a.moe;
  m.num_experts = text.positive("n_routed_experts");
  m.experts_per_token = text.positive("num_experts_per_tok");
  m.moe_intermediate_size = text.positive("moe_intermediate_size");
  m.num_shared_experts = text.integer("n_shared_experts").value_or(1);
  if (m.num_shared_experts > 0) {
    m.shared_expert_intermediate_size =
        m.num_shared_experts * text.positive("moe_shared_expert_intermediate_size");
  }
  m.router_correction_bias = true;
  m.router_float32 = true;
  for (std::int64_t l = 0; l < a.num_hidden_layers; ++l) {
    if (std::find(moe_layers.begin(), moe_layers.end(), l) == moe_layers.end()) {
      m.mlp_only_layers.push_back(l);
    }
  }
  // Latent MoE (Nemotron 3 Super: replicated fc1/fc2_latent_proj around experts of
  // moe_latent_size) and per-layer block_configs (Puzzle models) are not modelled.
  if (text.has("moe_latent_size") && !text.is_null("moe_latent_size")) {
    text.error("moe_latent_size", "NemotronH's latent MoE ('moe_latent_size') is not modelled");
  }
  if (text.has("block_configs")) {
    text.error("block_configs",
               "NemotronH's per-layer block_configs (Puzzle models) are not modelled");
  }
}

}  // namespace

void parse_linear_attention(const ConfigMap& text, Architecture& a) {
  LinearAttentionConfig& l = a.linear;
  // transformers models/qwen3_next/configuration_qwen3_next.py Qwen3NextConfig.__init__: the
  // published configs give every key; defaults are not relied upon.
  l.num_key_heads = bounded(text, "linear_num_key_heads");
  l.num_value_heads = bounded(text, "linear_num_value_heads");
  l.key_head_dim = bounded(text, "linear_key_head_dim");
  l.value_head_dim = bounded(text, "linear_value_head_dim");
  l.conv_kernel = bounded(text, "linear_conv_kernel_dim");
  if (l.num_key_heads > 0 && l.num_value_heads % l.num_key_heads != 0) {
    // sglang qwen3_next.py Qwen3GatedDeltaNet.fix_query_key_value_ordering groups value heads
    // by key head (num_v_heads // num_k_heads per group)
    text.error("linear_num_value_heads", "'linear_num_value_heads' " +
                                             std::to_string(l.num_value_heads) +
                                             " is not a multiple of 'linear_num_key_heads' " +
                                             std::to_string(l.num_key_heads));
  }
  read_ssm_dtype(text, l);
  if (text.has("layer_types") || a.num_hidden_layers <= 0) return;
  // transformers Qwen3NextConfig.__init__ (layer_types None) and sglang configs/qwen3_next.py
  // layers_block_type: layer i attends in full when (i + 1) % full_attention_interval == 0.
  const std::int64_t interval = text.positive("full_attention_interval", 4);
  if (interval <= 0) return;
  for (std::int64_t i = 0; i < a.num_hidden_layers; ++i) {
    a.layer_types[static_cast<size_t>(i)] =
        (i + 1) % interval == 0 ? LayerAttention::kFull : LayerAttention::kLinear;
  }
}

void parse_nemotron_h(const ConfigMap& text, Architecture& a) {
  LinearAttentionConfig& l = a.linear;
  // transformers models/nemotron_h/configuration_nemotron_h.py NemotronHConfig; the engines'
  // MambaMixer2 takes intermediate = mamba_num_heads x mamba_head_dim.
  l.kind = LinearKind::kMamba2;
  l.num_key_heads = bounded(text, "n_groups");
  l.num_value_heads = bounded(text, "mamba_num_heads");
  l.key_head_dim = bounded(text, "ssm_state_size");
  l.value_head_dim = bounded(text, "mamba_head_dim");
  l.conv_kernel = bounded(text, "conv_kernel");
  l.conv_bias = text.boolean("use_conv_bias").value_or(true);
  read_ssm_dtype(text, l);
  if (std::optional<std::string> d = text.string("mamba_ssm_cache_dtype")) {
    l.ssm_cache_dtype = parse_model_dtype(*d);
    if (!l.ssm_cache_dtype) {
      text.error("mamba_ssm_cache_dtype",
                 "unknown dtype '" + *d +
                     "' in 'mamba_ssm_cache_dtype'; expected bfloat16, float16 or float32");
    }
  }
  a.single_module_layers = true;
  a.gated_mlp = false;
  std::optional<std::string> pattern = text.string("hybrid_override_pattern");
  if (!pattern) {
    if (!text.has("hybrid_override_pattern")) text.missing("hybrid_override_pattern");
    return;
  }
  if (static_cast<std::int64_t>(pattern->size()) != a.num_hidden_layers) {
    text.error("hybrid_override_pattern",
               "'hybrid_override_pattern' has " + std::to_string(pattern->size()) +
                   " layers but 'num_hidden_layers' is " + std::to_string(a.num_hidden_layers));
    return;
  }
  std::vector<std::int64_t> moe_layers;
  for (size_t i = 0; i < pattern->size(); ++i) {
    switch ((*pattern)[i]) {
      case 'M':
        a.layer_types[i] = LayerAttention::kLinear;
        break;
      case '*':
        a.layer_types[i] = LayerAttention::kFull;
        break;
      case '-':
        a.layer_types[i] = LayerAttention::kNone;
        break;
      case 'E':
        a.layer_types[i] = LayerAttention::kNone;
        moe_layers.push_back(static_cast<std::int64_t>(i));
        break;
      default:
        text.error("hybrid_override_pattern",
                   std::string("unknown layer '") + (*pattern)[i] +
                       "' in 'hybrid_override_pattern'; expected M (Mamba-2), * (attention), "
                       "- (MLP) or E (MoE)");
        return;
    }
  }
  if (!moe_layers.empty()) parse_nemotron_moe(text, moe_layers, a);
}

void parse_kimi_linear(const ConfigMap& text, Architecture& a) {
  // vllm kimi_linear.py KimiMLAAttention.__init__: assert use_nope, assert q_lora_rank is None.
  if (a.attention != AttentionKind::kMla) {
    text.missing("kv_lora_rank");
    return;
  }
  if (!text.boolean("mla_use_nope").value_or(false)) {
    text.error(text.has("mla_use_nope") ? "mla_use_nope" : "kv_lora_rank",
               "Kimi Linear's MLA layers with RoPE ('mla_use_nope' false) are not served: vLLM's "
               "kimi_linear.py asserts mla_use_nope");
  }
  if (a.mla.q_lora_rank > 0) {
    text.error("q_lora_rank",
               "Kimi Linear's MLA layers with a 'q_lora_rank' are not served: "
               "vLLM's kimi_linear.py asserts q_lora_rank is None");
  }
  a.no_rope_interval = 1;
  // No published Kimi Linear checkpoint has MTP layers, and neither engine's kimi_linear.py
  // builds one; DeepSeek's MTP layout would be guessed.
  if (text.integer("num_nextn_predict_layers").value_or(0) != 0) {
    text.error("num_nextn_predict_layers",
               "Kimi Linear's MTP layers ('num_nextn_predict_layers') are not modelled");
  }
  if (!text.has("linear_attn_config")) {
    text.missing("linear_attn_config");
    return;
  }
  const ConfigMap c(text.file(), text.get("linear_attn_config"), "'linear_attn_config'",
                    text.diags());
  if (!c.valid()) return;
  LinearAttentionConfig& l = a.linear;
  // vllm layers/kda.py KimiDeltaAttention.__init__ (sglang kimi_linear.py alike): num_heads
  // heads of head_dim for q, k and v, causal convolutions of short_conv_kernel_size.
  l.kind = LinearKind::kKimiDelta;
  l.num_key_heads = bounded(c, "num_heads");
  l.num_value_heads = l.num_key_heads;
  l.key_head_dim = bounded(c, "head_dim");
  l.value_head_dim = l.key_head_dim;
  l.conv_kernel = bounded(c, "short_conv_kernel_size");
  std::optional<std::vector<std::int64_t>> kda = c.integers("kda_layers");
  if (!kda) {
    if (!c.has("kda_layers")) c.missing("kda_layers");
    return;
  }
  for (std::int64_t one_based : *kda) {
    if (one_based < 1 || one_based > a.num_hidden_layers) {
      c.error("kda_layers", "'kda_layers' names layer " + std::to_string(one_based) +
                                "; they are counted from 1 to 'num_hidden_layers' " +
                                std::to_string(a.num_hidden_layers));
      return;
    }
    a.layer_types[static_cast<size_t>(one_based - 1)] = LayerAttention::kLinear;
  }
}

}  // namespace gpumem
