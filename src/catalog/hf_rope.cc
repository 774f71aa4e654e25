#include "catalog/hf_rope.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>

namespace gpumem {
namespace {

std::optional<RopeType> rope_type_of(std::string_view name) {
  if (name == "default") return RopeType::kDefault;
  if (name == "linear") return RopeType::kLinear;
  if (name == "dynamic") return RopeType::kDynamic;
  if (name == "llama3") return RopeType::kLlama3;
  if (name == "yarn") return RopeType::kYarn;
  // transformers Phi3Config._rope_scaling_adjustment: the older name "su" is longrope.
  if (name == "longrope" || name == "su") return RopeType::kLongRope;
  return std::nullopt;
}

// transformers 5 writes rope_theta and the scaling together as `rope_parameters`
// (configuration_utils.py standardize_rope_params); older configs have rope_theta and
// rope_scaling at the top. Either is read; `default` there means no scaling.
YAML::Node rope_scaling_node(const ConfigMap& text, const char*& key) {
  key = "rope_scaling";
  if (text.has(key)) return text.get(key);
  key = "rope_parameters";
  return rope_parameters_of(text.get(key), "full_attention");
}

}  // namespace

void parse_rope_scaling(const ConfigMap& text, const std::string& architecture, RopeScaling& out) {
  const char* key = nullptr;
  const YAML::Node node = rope_scaling_node(text, key);
  if (!node.IsDefined()) return;
  ConfigMap m(text.file(), node, ConfigMap::quoted(key), text.diags());
  if (!m.valid()) return;
  out.mrope = m.has("mrope_section");
  if (std::string_view(key) == "rope_parameters" &&
      m.string(m.has("rope_type") ? "rope_type" : "type").value_or("default") == "default") {
    return;
  }
  // sglang v0.5.9 layers/rotary_embedding.py get_rope: "rope_type", else the older "type"
  const char* type_key = m.has("rope_type") ? "rope_type" : "type";
  std::optional<std::string> type = m.string(type_key);
  if (!type) {
    if (!m.has(type_key)) m.missing("rope_type");
    return;
  }
  // transformers Qwen2VLConfig.__init__ and Qwen2_5_VLConfig.__init__ rename the "mrope" type
  // "default"; the engines' MRotaryEmbedding keeps the default cos/sin cache.
  if (*type == "mrope" && (architecture == "Qwen2_5_VLForConditionalGeneration" ||
                           architecture == "Qwen2VLForConditionalGeneration")) {
    *type = "default";
  }
  // Gemma 4's full layers: vllm gemma4_rope.py Gemma4RotaryEmbedding rotates the head's first
  // partial_rotary_factor with zero-padded frequencies over the whole head, no length scaling
  // (its cache is as wide as the head: rank_weights.cc layer_rope).
  if (*type == "proportional" && architecture.starts_with("Gemma4")) return;
  std::optional<RopeType> t = rope_type_of(*type);
  if (!t) {
    m.error(type_key, "rope_scaling type '" + *type +
                          "' is not modelled; gpumem models default, linear, dynamic, "
                          "llama3, yarn and longrope");
    return;
  }
  out.type = *t;
  out.factor = m.number("factor").value_or(1.0);
  out.original_max_position_embeddings = m.integer("original_max_position_embeddings").value_or(0);
  // vllm models/llama.py LlamaAttention (and SGLang's copy): Phi-3 gives the short context at
  // the top of the config; it is copied into the longrope scaling.
  if (out.type == RopeType::kLongRope && out.original_max_position_embeddings == 0) {
    out.original_max_position_embeddings = text.positive("original_max_position_embeddings");
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->second.IsScalar()) continue;
    const std::string name = it->first.Scalar();
    if (name == "rope_theta") continue;  // rope_parameters holds the base too
    const std::string value = it->second.Scalar();
    if (value == "true" || value == "false") {
      out.parameters.emplace_back(name, value == "true" ? 1.0 : 0.0);
      continue;
    }
    double v = 0;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(value.data(), end, v, std::chars_format::general);
    if (ec == std::errc() && ptr == end) out.parameters.emplace_back(name, v);
  }
  std::sort(out.parameters.begin(), out.parameters.end());
}

YAML::Node rope_parameters_of(const YAML::Node& node, const char* layer_type) {
  if (!node.IsDefined() || !node.IsMap()) return node;
  const YAML::Node of_type = node[layer_type];
  return of_type.IsDefined() && of_type.IsMap() ? of_type : node;
}

void parse_rope(const ConfigMap& text, double default_theta, double default_local_base,
                Architecture& a) {
  a.rope_theta = text.number("rope_theta").value_or(default_theta);
  if (!text.has("rope_theta") && text.has("rope_parameters")) {
    ConfigMap rope(text.file(), rope_parameters_of(text.get("rope_parameters"), "full_attention"),
                   "'rope_parameters'", text.diags());
    if (rope.valid()) a.rope_theta = rope.number("rope_theta").value_or(default_theta);
  }
  if (a.family == ArchitectureFamily::kGemma3 || a.family == ArchitectureFamily::kGemma4) {
    a.rope_local_base_freq = text.number("rope_local_base_freq").value_or(default_local_base);
    const YAML::Node per_type = text.get("rope_parameters");
    if (!text.has("rope_local_base_freq") && text.has("rope_parameters") &&
        !rope_parameters_of(per_type, "sliding_attention").is(per_type)) {
      ConfigMap sliding(text.file(), rope_parameters_of(per_type, "sliding_attention"),
                        "'rope_parameters'", text.diags());
      if (sliding.valid()) {
        a.rope_local_base_freq = sliding.number("rope_theta").value_or(default_local_base);
      }
    }
  }
  // sglang and vllm glm4.py Glm4Attention (and transformers Glm4Config): half the head rotates
  // unless the config says otherwise.
  a.partial_rotary_factor = text.number("partial_rotary_factor")
                                .value_or(a.family == ArchitectureFamily::kGlm4 ? 0.5 : 1.0);
  if (a.partial_rotary_factor <= 0.0 || a.partial_rotary_factor > 1.0) {
    text.error("partial_rotary_factor", "'partial_rotary_factor' must be in (0, 1]");
  }
  a.rotary_dim =
      a.attention == AttentionKind::kMla
          ? a.mla.qk_rope_head_dim
          : static_cast<std::int64_t>(a.partial_rotary_factor * static_cast<double>(a.head_dim));
  // vllm deepseek_v4.py DeepseekV4Attention: only qk_rope_head_dim of the 512-wide latent rotates.
  if (a.family == ArchitectureFamily::kDeepseekV4) a.rotary_dim = a.mla.qk_rope_head_dim;
  if (a.family == ArchitectureFamily::kMiniMaxM2 && text.has("rotary_dim")) {
    // sglang (read at 01b5f57) minimax_m2.py MiniMaxM2Attention:
    // get_rope(rotary_dim=config.rotary_dim); vllm minimax_m2.py: partial_rotary_factor =
    // rotary_dim / head_dim, the same width.
    a.rotary_dim = text.positive("rotary_dim");
    if (a.rotary_dim > a.head_dim) {
      text.error("rotary_dim", "'rotary_dim' " + std::to_string(a.rotary_dim) +
                                   " is larger than 'head_dim' " + std::to_string(a.head_dim));
    }
  }
  // sglang and vllm nemotron_h.py NemotronHAttention and vllm jamba.py
  // JambaAttentionDecoderLayer build no rotary embedding.
  if (a.family == ArchitectureFamily::kNemotronH || a.family == ArchitectureFamily::kJamba) {
    a.rotary_dim = 0;
  }
  // sglang and vllm granitemoehybrid.py GraniteMoeHybridAttention: a rotary embedding only for
  // position_embedding_type "rope"; Granite 4.0-H writes "nope".
  if (a.family == ArchitectureFamily::kGraniteHybrid &&
      text.string("position_embedding_type").value_or("") != "rope") {
    a.rotary_dim = 0;
  }
  parse_rope_scaling(text, a.hf_architecture, a.rope_scaling);
}

}  // namespace gpumem
