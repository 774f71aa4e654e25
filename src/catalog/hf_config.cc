// Reading a Hugging Face config.json into an Architecture (architecture.h: load_hf_config,
// parse_hf_config): the family from `architectures`, the defaults its config class fills
// in, heads, layers, MoE, MLA, EAGLE-3 draft heads and the quantization block; RoPE in hf_rope.cc.
#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>

#include "catalog/architecture.h"
#include "catalog/config_map.h"
#include "catalog/hf_architectures.h"
#include "catalog/hf_attention_features.h"
#include "catalog/hf_decilm.h"
#include "catalog/hf_deepseek_v4.h"
#include "catalog/hf_gemma4.h"
#include "catalog/hf_granite_hybrid.h"
#include "catalog/hf_grok.h"
#include "catalog/hf_jamba.h"
#include "catalog/hf_linear_attention.h"
#include "catalog/hf_llama4.h"
#include "catalog/hf_mamba.h"
#include "catalog/hf_phimoe.h"
#include "catalog/hf_quantization.h"
#include "catalog/hf_rope.h"
#include "catalog/hf_vision.h"
#include "core/directory.h"
#include "core/spelling.h"

namespace gpumem {

namespace {

// Values a Hugging Face config class fills in when config.json omits the key. Only families
// whose real config.json files rely on such defaults need entries.
struct FamilyDefaults {
  // Set only where a config may leave the model's dimensions to its class (LLaVA's and Gemma
  // 3's text_config); elsewhere they are required.
  std::optional<std::int64_t> hidden_size;
  std::optional<std::int64_t> intermediate_size;
  std::optional<std::int64_t> num_hidden_layers;
  std::optional<std::int64_t> num_attention_heads;
  std::optional<std::int64_t> num_key_value_heads;
  std::optional<std::int64_t> vocab_size;
  std::optional<std::int64_t> max_position_embeddings;
  std::optional<std::int64_t> sliding_window;
  std::optional<std::int64_t> head_dim;
  bool tie_word_embeddings = false;
  double rope_theta = 10000.0;
  double rope_local_base_freq = 0.0;
  std::int64_t sliding_window_pattern = 0;
  std::int64_t num_shared_experts = 0;
  std::int64_t first_k_dense_replace = 0;
  const char* topk_method = "";  // DeepSeek: the routing a config without topk_method gets
};

FamilyDefaults defaults_for(ArchitectureFamily family) {
  FamilyDefaults d;
  switch (family) {
    case ArchitectureFamily::kGemma2:
      // transformers models/gemma2/configuration_gemma2.py Gemma2Config.__init__
      d.vocab_size = 256000;
      d.max_position_embeddings = 8192;
      d.sliding_window = 4096;
      d.head_dim = 256;
      d.tie_word_embeddings = true;
      break;
    case ArchitectureFamily::kGemma3:
      // transformers models/gemma3/configuration_gemma3.py Gemma3TextConfig.__init__. Google's
      // published text_config lists only what differs: gemma-3-4b-it gives no head counts,
      // gemma-3-12b-it no head_dim, whose 256 is not hidden_size / num_attention_heads.
      d.hidden_size = 2304;
      d.intermediate_size = 9216;
      d.num_hidden_layers = 26;
      d.num_attention_heads = 8;
      d.num_key_value_heads = 4;
      d.head_dim = 256;
      d.vocab_size = 262208;
      d.max_position_embeddings = 131072;
      d.sliding_window = 4096;
      d.tie_word_embeddings = true;
      d.rope_theta = 1000000.0;
      d.rope_local_base_freq = 10000.0;
      d.sliding_window_pattern = 6;
      break;
    case ArchitectureFamily::kGemma4:
      // transformers models/gemma4/configuration_gemma4.py Gemma4TextConfig: Gemma 3's
      // defaults but 30 layers, a vocabulary of 262,144 and a window of 512.
      d = defaults_for(ArchitectureFamily::kGemma3);
      d.num_hidden_layers = 30;
      d.vocab_size = 262144;
      d.sliding_window = 512;
      break;
    case ArchitectureFamily::kQwen3:
      // transformers models/qwen3/configuration_qwen3.py Qwen3Config.__init__: head_dim 128,
      // which the engines read from the config object (Qwen3-4B's 2560 / 32 would be 80).
      d.head_dim = 128;
      break;
    case ArchitectureFamily::kDeepseekV2:
      // transformers models/deepseek_v2/configuration_deepseek_v2.py DeepseekV2Config.__init__
      d.topk_method = "greedy";
      break;
    case ArchitectureFamily::kDeepseekV3:
      // transformers models/deepseek_v3/configuration_deepseek_v3.py DeepseekV3Config.__init__
      d.num_shared_experts = 1;
      d.first_k_dense_replace = 3;
      d.topk_method = "noaux_tc";
      break;
    case ArchitectureFamily::kGlm4Moe:
      // transformers models/glm4_moe/configuration_glm4_moe.py Glm4MoeConfig.__init__
      d.num_shared_experts = 1;
      d.first_k_dense_replace = 1;
      break;
    case ArchitectureFamily::kPhiMoe:
      // transformers models/phimoe/configuration_phimoe.py PhimoeConfig.__init__
      d.vocab_size = 32064;
      d.max_position_embeddings = 4096 * 32;
      break;
    case ArchitectureFamily::kQwen2Moe:
      // transformers models/qwen2_moe/configuration_qwen2_moe.py Qwen2MoeConfig
      d.vocab_size = 151936;
      d.max_position_embeddings = 32768;
      break;
    case ArchitectureFamily::kLlama4:
      // transformers models/llama4/configuration_llama4.py Llama4TextConfig.__init__
      d.vocab_size = 202048;
      d.max_position_embeddings = 4096 * 32;
      d.head_dim = 128;
      d.rope_theta = 500000.0;
      break;
    case ArchitectureFamily::kMiniMaxM2:
      // transformers models/minimax_m2/configuration_minimax_m2.py MiniMaxM2Config
      d.vocab_size = 200064;
      d.max_position_embeddings = 196608;
      d.head_dim = 128;
      d.rope_theta = 5000000.0;
      break;
    case ArchitectureFamily::kJamba:
      // transformers models/jamba/configuration_jamba.py JambaConfig.__init__
      d.vocab_size = 65536;
      d.max_position_embeddings = 262144;
      break;
    case ArchitectureFamily::kGrok:
      // sglang grok.py Grok1Attention: getattr(config, "head_dim", 128)
      d.head_dim = 128;
      break;
    case ArchitectureFamily::kDeciLM:
      // configuration_decilm.py DeciLMConfig (the checkpoint's remote code) writes
      // intermediate_size and num_key_value_heads as null: block_configs give them per layer.
      d.intermediate_size = 0;
      break;
    case ArchitectureFamily::kCohere:
      // transformers models/cohere/configuration_cohere.py CohereConfig.__init__ (Cohere2Config
      // alike, with a window of 4,096 on all but every fourth layer)
      d.vocab_size = 256000;
      d.max_position_embeddings = 8192;
      d.tie_word_embeddings = true;
      d.sliding_window = 4096;
      d.sliding_window_pattern = 4;
      break;
    default:
      break;
  }
  return d;
}

// LLaVA's text_config holds only what differs from its class's defaults: transformers
// LlavaConfig.__init__ builds CONFIG_MAPPING[text_config["model_type"]](**text_config), so the
// rest are LlamaConfig's (models/llama/configuration_llama.py) or MistralConfig's
// (models/mistral/configuration_mistral.py) __init__ defaults. Nullopt for another language
// model, which gpumem does not serve under LLaVA.
std::optional<FamilyDefaults> llava_text_defaults(const ConfigMap& text) {
  const std::string type = text.string("model_type").value_or("llama");
  FamilyDefaults d;
  d.hidden_size = 4096;
  d.num_hidden_layers = 32;
  d.num_attention_heads = 32;
  d.vocab_size = 32000;
  if (type == "llama") {
    d.intermediate_size = 11008;
    d.max_position_embeddings = 2048;
    return d;
  }
  if (type == "mistral") {
    d.intermediate_size = 14336;
    d.num_key_value_heads = 8;
    d.max_position_embeddings = 4096 * 32;
    return d;
  }
  text.error("model_type", "a LLaVA language model of type '" + type +
                               "' is not modelled: gpumem serves LLaVA's llama and mistral "
                               "text models");
  return std::nullopt;
}

void parse_layer_types(const ConfigMap& text, Architecture& a) {
  std::optional<std::vector<std::string>> types = text.strings("layer_types");
  if (!types) return;
  if (static_cast<std::int64_t>(types->size()) != a.num_hidden_layers) {
    text.error("layer_types", "'layer_types' has " + std::to_string(types->size()) +
                                  " entries but 'num_hidden_layers' is " +
                                  std::to_string(a.num_hidden_layers));
    return;
  }
  a.layer_types.clear();
  const bool hybrid = a.is_qwen_hybrid();
  for (const std::string& t : *types) {
    if (t == "full_attention") {
      a.layer_types.push_back(LayerAttention::kFull);
    } else if (t == "sliding_attention" && !hybrid) {
      a.layer_types.push_back(LayerAttention::kSliding);
    } else if (t == "linear_attention" && hybrid) {
      a.layer_types.push_back(LayerAttention::kLinear);
    } else {
      text.error("layer_types", "unknown layer type '" + t + "'; expected full_attention or " +
                                    (hybrid ? "linear_attention" : "sliding_attention"));
      return;
    }
  }
}

// Which layers attend through a sliding window. `layer_types` decides wherever a config
// gives it (transformers writes it for every family from 4.54 on); otherwise each family's
// config class derives it: gpt-oss needs it, Gemma 2 slides on even layers, Gemma 3 on all
// but every sliding_window_pattern-th, Qwen from max_window_layers on when
// use_sliding_window. Other families attend in full whatever `sliding_window` says: vLLM's
// llama.py LlamaAttention and SGLang's llama.py window a layer only through layer_types, so
// Mistral's `sliding_window` without them has no memory effect.
// EXAONE 4.0's sliding_window_pattern, as sglang exaone4.py Exaone4Attention reads it: a string
// ("LLLG") whose length is the period, the last layer of each period global. transformers
// derives the layer_types vLLM's exaone4.py reads from the same string. An integer (the
// transformers default's form) is refused: SGLang takes len() of it.
std::int64_t exaone_pattern_period(const ConfigMap& text) {
  const YAML::Node p = text.get("sliding_window_pattern");
  if (!p.IsDefined() || p.IsNull() || !p.IsScalar()) return 0;
  const std::string& s = p.Scalar();
  if (s.find_first_not_of("LG") != std::string::npos || s.empty()) {
    text.error("sliding_window_pattern",
               "'sliding_window_pattern' " + s +
                   " is not modelled for EXAONE 4.0: SGLang's exaone4.py takes the length of a "
                   "string of L and G");
    return 0;
  }
  return static_cast<std::int64_t>(s.size());
}

void parse_attention_layers(const ConfigMap& text, const FamilyDefaults& d, Architecture& a) {
  a.layer_types.assign(static_cast<size_t>(a.num_hidden_layers), LayerAttention::kFull);
  const std::int64_t exaone_period =
      a.family == ArchitectureFamily::kExaone4 ? exaone_pattern_period(text) : 0;
  if (text.has("layer_types")) {
    parse_layer_types(text, a);
    if (std::find(a.layer_types.begin(), a.layer_types.end(), LayerAttention::kSliding) !=
        a.layer_types.end()) {
      a.sliding_window = text.positive("sliding_window", d.sliding_window);
    }
    return;
  }
  switch (a.family) {
    case ArchitectureFamily::kGptOss:
      text.missing("layer_types");
      break;
    case ArchitectureFamily::kGemma2:
      // transformers Gemma2Config.__init__: layer i slides when (i + 1) % 2 (even layers)
      a.sliding_window = text.positive("sliding_window", d.sliding_window);
      for (std::int64_t i = 0; i < a.num_hidden_layers; i += 2) {
        a.layer_types[i] = LayerAttention::kSliding;
      }
      break;
    case ArchitectureFamily::kGemma3:
    case ArchitectureFamily::kGemma4: {
      a.sliding_window = text.positive("sliding_window", d.sliding_window);
      // transformers Gemma3TextConfig.__init__ (Gemma4TextConfig.__post_init__ alike): layer i
      // slides unless (i + 1) % pattern == 0
      const std::int64_t pattern =
          text.positive("sliding_window_pattern", d.sliding_window_pattern);
      if (pattern == 0) break;
      for (std::int64_t i = 0; i < a.num_hidden_layers; ++i) {
        if ((i + 1) % pattern != 0) a.layer_types[i] = LayerAttention::kSliding;
      }
      break;
    }
    case ArchitectureFamily::kCohere: {
      // transformers Cohere2Config.__init__: layer i slides unless (i + 1) % pattern == 0; Cohere
      // (v1) has no window.
      if (a.hf_architecture != "Cohere2ForCausalLM") break;
      a.sliding_window = text.positive("sliding_window", d.sliding_window);
      const std::int64_t pattern =
          text.positive("sliding_window_pattern", d.sliding_window_pattern);
      for (std::int64_t i = 0; i < a.num_hidden_layers; ++i) {
        if ((i + 1) % pattern != 0) a.layer_types[i] = LayerAttention::kSliding;
      }
      break;
    }
    case ArchitectureFamily::kExaone4:
      if (exaone_period == 0) break;
      a.sliding_window = text.positive("sliding_window");
      for (std::int64_t i = 0; i < a.num_hidden_layers; ++i) {
        if ((i + 1) % exaone_period != 0) a.layer_types[i] = LayerAttention::kSliding;
      }
      break;
    case ArchitectureFamily::kQwen2:
    case ArchitectureFamily::kQwen3:
    case ArchitectureFamily::kQwen3Moe:
      // transformers Qwen2Attention: layers from max_window_layers on slide when enabled
      if (text.boolean("use_sliding_window").value_or(false)) {
        a.sliding_window = text.positive("sliding_window");
        const std::int64_t first = text.positive("max_window_layers");
        for (std::int64_t i = first; i < a.num_hidden_layers; ++i) {
          a.layer_types[i] = LayerAttention::kSliding;
        }
      }
      break;
    default:
      break;
  }
}

// The routed-expert count: HF spells it per family (n_routed_experts, num_experts,
// num_local_experts) and transformers 5 re-serializes some configs with another spelling
// (Qwen3-MoE as num_local_experts), so the family's own key is read first, then the others.
std::int64_t expert_count(const ConfigMap& text, std::string_view own) {
  for (std::string_view key :
       {own, std::string_view("n_routed_experts"), std::string_view("num_experts"),
        std::string_view("num_local_experts")}) {
    if (text.has(key)) return text.positive(key);
  }
  return text.positive(own);  // reports the family's key as missing
}

// Qwen1.5-MoE / Qwen2-MoE: routed experts of moe_intermediate_size, a shared expert of
// shared_expert_intermediate_size (transformers Qwen2MoeConfig defaults: 60 experts top-4 of
// 1408, shared 5632) behind a sigmoid gate.
void parse_qwen2_moe(const ConfigMap& text, Architecture& a) {
  MoeConfig& m = a.moe;
  const bool experts_given =
      text.has("num_experts") || text.has("num_local_experts") || text.has("n_routed_experts");
  m.num_experts = experts_given ? expert_count(text, "num_experts") : 60;
  m.experts_per_token = text.positive("num_experts_per_tok", 4);
  m.moe_intermediate_size = text.positive("moe_intermediate_size", 1408);
  // 0 means no shared expert (sglang and vllm qwen2_moe.py build it only when > 0)
  const YAML::Node shared = text.get("shared_expert_intermediate_size");
  m.shared_expert_intermediate_size = shared.IsScalar() && shared.Scalar() == "0"
                                          ? 0
                                          : text.positive("shared_expert_intermediate_size", 5632);
  // sglang (read at 0115497) qwen2_moe.py Qwen2MoeSparseMoeBlock.__init__ and vllm
  // qwen2_moe.py: shared_expert_gate exists whether or not the shared expert does
  m.shared_expert_gate = true;
  m.num_shared_experts = m.shared_expert_intermediate_size > 0 ? 1 : 0;
  // sglang qwen2_moe.py Qwen2MoeDecoderLayer.__init__ makes every layer sparse ("Qwen2MoE all
  // layers are sparse"); vllm qwen2_moe.py Qwen2MoeDecoderLayer.__init__ follows
  // decoder_sparse_step and mlp_only_layers. Configs where the two differ are refused.
  const std::int64_t step = text.positive("decoder_sparse_step", 1);
  const std::vector<std::int64_t> dense =
      text.integers("mlp_only_layers").value_or(std::vector<std::int64_t>{});
  if (step != 1) {
    text.error("decoder_sparse_step",
               "'decoder_sparse_step' " + std::to_string(step) +
                   " is not modelled: SGLang's qwen2_moe.py makes every layer sparse, vLLM's "
                   "follows it");
  }
  if (!dense.empty()) {
    text.error("mlp_only_layers",
               "'mlp_only_layers' is not modelled: SGLang's qwen2_moe.py makes every layer "
               "sparse, vLLM's follows it");
  }
}

void parse_moe(const ConfigMap& text, const FamilyDefaults& d, Architecture& a) {
  MoeConfig& m = a.moe;
  switch (a.family) {
    case ArchitectureFamily::kMixtral:
      m.num_experts = expert_count(text, "num_local_experts");
      m.experts_per_token = text.positive("num_experts_per_tok");
      m.moe_intermediate_size = a.intermediate_size;
      break;
    case ArchitectureFamily::kQwen3Moe:
      m.num_experts = expert_count(text, "num_experts");
      m.experts_per_token = text.positive("num_experts_per_tok");
      m.moe_intermediate_size = text.positive("moe_intermediate_size");
      m.decoder_sparse_step = text.positive("decoder_sparse_step", 1);
      m.mlp_only_layers = text.integers("mlp_only_layers").value_or(std::vector<std::int64_t>{});
      break;
    case ArchitectureFamily::kDeepseekV2:
    case ArchitectureFamily::kDeepseekV3:
    case ArchitectureFamily::kGlm4Moe: {
      m.num_experts = expert_count(text, "n_routed_experts");
      m.experts_per_token = text.positive("num_experts_per_tok");
      m.moe_intermediate_size = text.positive("moe_intermediate_size");
      m.num_shared_experts = text.integer("n_shared_experts").value_or(d.num_shared_experts);
      m.first_k_dense_replace =
          text.integer("first_k_dense_replace").value_or(d.first_k_dense_replace);
      m.moe_layer_freq = text.positive("moe_layer_freq", 1);
      m.shared_expert_intermediate_size = m.moe_intermediate_size * m.num_shared_experts;
      // sglang v0.5.9 deepseek_v2.py MoEGate.__init__: the bias exists for noaux_tc routing
      // (DeepSeek-V3's; V2's greedy routing has none); glm4_moe.py Glm4MoeGate.__init__
      // always has it.
      m.router_correction_bias = a.family == ArchitectureFamily::kGlm4Moe ||
                                 text.string("topk_method").value_or(d.topk_method) == "noaux_tc";
      // sglang (read at 03b1e88) glm4_moe_lite.py Glm4MoeLiteGate.__init__: weight and
      // e_score_correction_bias in float32; vllm glm4_moe_lite.py takes glm4_moe.py's Glm4MoE,
      // whose gate is an nn.Linear in float32.
      m.router_float32 = a.hf_architecture == "Glm4MoeLiteForCausalLM";
      break;
    }
    case ArchitectureFamily::kKimiLinear:
      // vllm and sglang kimi_linear.py KimiMoE: num_experts experts of moe_intermediate_size
      // from first_k_dense_replace on (every moe_layer_freq-th layer), a gate with an
      // e_score_correction_bias in the model dtype (nn.Parameter(torch.empty(num_experts))),
      // num_shared_experts as one MLP; KimiLinearConfig.is_moe: experts only when num_experts.
      if (!text.has("num_experts")) break;
      m.num_experts = text.positive("num_experts");
      m.experts_per_token = text.positive("num_experts_per_token");
      m.moe_intermediate_size = text.positive("moe_intermediate_size");
      m.num_shared_experts = text.integer("num_shared_experts").value_or(0);
      m.first_k_dense_replace = text.integer("first_k_dense_replace").value_or(0);
      m.moe_layer_freq = text.positive("moe_layer_freq", 1);
      m.shared_expert_intermediate_size = m.moe_intermediate_size * m.num_shared_experts;
      m.router_correction_bias = true;
      break;
    case ArchitectureFamily::kQwen2Moe:
    case ArchitectureFamily::kQwen3Next:
      // sglang qwen3_next.py builds Qwen2MoeSparseMoeBlock in every layer
      parse_qwen2_moe(text, a);
      break;
    case ArchitectureFamily::kQwen35:
      // transformers Qwen3_5TextConfig has a dense MLP, Qwen3_5MoeTextConfig experts with a
      // gated shared expert as Qwen3-Next's.
      if (text.has("num_experts")) parse_qwen2_moe(text, a);
      break;
    case ArchitectureFamily::kMiniMaxM2:
      // sglang (read at 01b5f57) minimax_m2.py MiniMaxM2MoE.__init__ (vLLM's alike): FusedMoE of
      // num_local_experts of intermediate_size, a float32 ReplicatedLinear router, a float32
      // e_score_correction_bias when use_routing_bias; no shared expert is built, whatever
      // shared_intermediate_size says.
      m.num_experts = expert_count(text, "num_local_experts");
      m.experts_per_token = text.positive("num_experts_per_tok");
      m.moe_intermediate_size = a.intermediate_size;
      m.router_correction_bias = text.boolean("use_routing_bias").value_or(false);
      break;
    case ArchitectureFamily::kErnie45: {
      // transformers Ernie4_5_MoeConfig: experts from moe_layer_start_index to
      // moe_layer_end_index (-1: the last layer) every moe_layer_interval layers. SGLang's
      // ernie4.py and vLLM's ernie45_moe.py count the interval from different layers, so only 1
      // (every release's) is modelled; the dense form has no moe_num_experts.
      if (text.integer("moe_num_experts").value_or(0) == 0) break;
      m.num_experts = text.positive("moe_num_experts");
      m.experts_per_token = text.positive("moe_k");
      m.moe_intermediate_size = text.positive("moe_intermediate_size");
      m.num_shared_experts = text.integer("moe_num_shared_experts").value_or(0);
      if (m.num_shared_experts < 0 || m.num_shared_experts > m.num_experts) {
        text.error("moe_num_shared_experts",
                   "'moe_num_shared_experts' must be from 0 to " + std::to_string(m.num_experts));
        m.num_shared_experts = 0;
      }
      m.shared_expert_intermediate_size = m.moe_intermediate_size * m.num_shared_experts;
      m.first_k_dense_replace = text.integer("moe_layer_start_index").value_or(0);
      if (m.first_k_dense_replace < 0 || m.first_k_dense_replace >= a.num_hidden_layers) {
        text.error("moe_layer_start_index", "'moe_layer_start_index' must name a layer (0 to " +
                                                std::to_string(a.num_hidden_layers - 1) + ")");
        m.first_k_dense_replace = 0;
      }
      // sglang ernie4.py MoEGate and vllm ernie45_moe.py Ernie4_5_MoeMoE: the bias is always
      // built (moe_statics.e_score_correction_bias in the checkpoint).
      m.router_correction_bias = true;
      const std::int64_t interval = text.integer("moe_layer_interval").value_or(1);
      if (interval != 1) {
        text.error("moe_layer_interval",
                   "'moe_layer_interval' " + std::to_string(interval) +
                       " is not modelled: SGLang's ernie4.py counts it from "
                       "moe_layer_start_index, vLLM's ernie45_moe.py from layer 0");
      }
      const std::int64_t end = text.integer("moe_layer_end_index").value_or(-1);
      if (end != -1 && end != a.num_hidden_layers - 1) {
        text.error("moe_layer_end_index", "'moe_layer_end_index' " + std::to_string(end) +
                                              " before the last layer is not modelled");
      }
      break;
    }
    case ArchitectureFamily::kGptOss:
      m.num_experts = expert_count(text, "num_local_experts");
      m.experts_per_token = text.positive("num_experts_per_tok", text.integer("experts_per_token"));
      m.moe_intermediate_size = a.intermediate_size;
      m.router_bias = true;  // sglang v0.5.9 gpt_oss.py GptOssSparseMoeBlock: router bias=True
      m.expert_bias = true;  // sglang v0.5.9 gpt_oss.py: FusedMoE(..., with_bias=True)
      break;
    default:
      break;
  }
}

void parse_mla(const ConfigMap& text, Architecture& a) {
  a.attention = AttentionKind::kMla;
  a.mla.q_lora_rank = text.integer("q_lora_rank").value_or(0);
  a.mla.kv_lora_rank = text.positive("kv_lora_rank");
  a.mla.qk_nope_head_dim = text.positive("qk_nope_head_dim");
  a.mla.qk_rope_head_dim = text.positive("qk_rope_head_dim");
  a.head_dim = a.mla.qk_nope_head_dim + a.mla.qk_rope_head_dim;
  a.v_head_dim = text.positive("v_head_dim");
  // sglang configs/model_config.py is_deepseek_nsa and vllm platforms/cuda.py (use_sparse):
  // a config with index_topk attends sparsely through a lightning indexer.
  if (text.has("index_topk")) {
    a.mla.index_topk = text.positive("index_topk");
    a.mla.index_n_heads = text.positive("index_n_heads");
    a.mla.index_head_dim = text.positive("index_head_dim");
    // sglang memory_pool.py NSATokenToKVPool.__init__ asserts index_head_dim == 128, and
    // vLLM's FP8 indexer kernels (DeepGEMM fp8_mqa_logits) take 128 only.
    if (a.mla.index_head_dim != 128) {
      text.error("index_head_dim", "'index_head_dim' " + std::to_string(a.mla.index_head_dim) +
                                       " is not modelled: both engines' sparse-attention "
                                       "indexer caches take 128 only");
    }
    // GLM-5.2's IndexShare (vllm deepseek_v2.py, newest code): layers whose indexer_types entry
    // is 'shared' reuse an earlier layer's top-k and keep no indexer or indexer cache.
    if (text.has("indexer_types") || text.integer("index_topk_freq").value_or(1) != 1) {
      text.error(text.has("indexer_types") ? "indexer_types" : "index_topk_freq",
                 "sharing sparse-attention indexers between layers (IndexShare: 'indexer_types', "
                 "'index_topk_freq') is not modelled");
    }
    // The indexer's queries come from the compressed query (its wq_b reads q_lora_rank).
    if (a.mla.q_lora_rank <= 0) {
      text.error("index_topk",
                 "a sparse-attention indexer needs 'q_lora_rank': its queries are "
                 "projected from the compressed query");
    }
  }
}

void parse_heads(const ConfigMap& text, const FamilyDefaults& d, Architecture& a) {
  a.num_key_value_heads =
      text.positive("num_key_value_heads", d.num_key_value_heads.value_or(a.num_attention_heads));
  if (a.num_attention_heads > 0 && a.num_key_value_heads > 0 &&
      a.num_attention_heads % a.num_key_value_heads != 0) {
    text.error("num_key_value_heads", "'num_attention_heads' " +
                                          std::to_string(a.num_attention_heads) +
                                          " is not a multiple of 'num_key_value_heads' " +
                                          std::to_string(a.num_key_value_heads));
  }
  // A config with a latent KV rank attends through MLA, whatever its family.
  if (text.has("kv_lora_rank")) {
    parse_mla(text, a);
    return;
  }
  if (text.has("head_dim") || d.head_dim) {
    a.head_dim = text.positive("head_dim", d.head_dim);
  } else if (text.has("attention_head_dim")) {
    // NemotronH names it attention_head_dim (transformers NemotronHConfig).
    a.head_dim = text.positive("attention_head_dim");
  } else if (a.num_attention_heads > 0 && a.hidden_size > 0) {
    if (a.hidden_size % a.num_attention_heads != 0) {
      text.error("num_attention_heads", "'hidden_size' " + std::to_string(a.hidden_size) +
                                            " is not divisible by 'num_attention_heads' " +
                                            std::to_string(a.num_attention_heads) +
                                            " and 'head_dim' is not given");
    } else {
      a.head_dim = a.hidden_size / a.num_attention_heads;
    }
  }
  a.v_head_dim = a.head_dim;
}

void parse_eagle3(const ConfigMap& text, Architecture& a) {
  // sglang v0.5.9 llama_eagle3.py LlamaForCausalLMEagle3: draft_vocab_size None -> vocab
  a.draft_vocab_size = text.integer("draft_vocab_size").value_or(a.vocab_size);
  if (a.draft_vocab_size <= 0) {
    text.error("draft_vocab_size",
               "'draft_vocab_size' must be positive, got " + std::to_string(a.draft_vocab_size));
  }
  // sglang v0.5.9 llama_eagle3.py LlamaModel: fc takes 3 x target_hidden_size (or hidden)
  a.eagle_fc_input_size = 3 * text.positive("target_hidden_size", a.hidden_size);
  const YAML::Node eagle = text.get("eagle_config");
  if (eagle.IsDefined()) {
    ConfigMap e(text.file(), eagle, "'eagle_config'", text.diags());
    if (e.valid()) {
      a.eagle_aux_layer_ids =
          e.integers("eagle_aux_hidden_state_layer_ids").value_or(std::vector<std::int64_t>{});
    }
  }
}

std::optional<DType> read_dtype(const ConfigMap& m) {
  for (const char* key : {"torch_dtype", "dtype"}) {
    std::optional<std::string> text = m.string(key);
    if (!text) continue;
    std::optional<DType> t = parse_model_dtype(*text);
    if (!t) {
      m.error(key, "unknown dtype '" + *text + "' in '" + key +
                       "'; expected bfloat16, float16 or float32" +
                       did_you_mean(*text, model_dtype_names()));
    }
    return t;
  }
  return std::nullopt;
}

// The text model's sizes, heads, experts and layer kinds of every family but the attention-free
// stacks and DeepSeek-V4, which read their own.
void parse_text_model(const ConfigMap& top, const ConfigMap& text, const FamilyDefaults& d,
                      Architecture& a) {
  a.hidden_size = text.positive("hidden_size", d.hidden_size);
  a.num_hidden_layers = text.positive("num_hidden_layers", d.num_hidden_layers);
  a.num_attention_heads = text.positive("num_attention_heads", d.num_attention_heads);
  // Qwen3_5MoeTextConfig has no dense MLP width: every layer is sparse (transformers
  // configuration_qwen3_5_moe.py), and its published configs carry no intermediate_size.
  const bool every_layer_sparse =
      a.family == ArchitectureFamily::kQwen35 && text.has("num_experts");
  a.intermediate_size = every_layer_sparse
                            ? text.integer("intermediate_size").value_or(0)
                            : text.positive("intermediate_size", d.intermediate_size);
  a.vocab_size = text.positive("vocab_size", d.vocab_size);
  // vllm model_arch_config_convertor.py derive_max_model_len_and_key and sglang
  // get_context_length read model_max_length too: Kimi Linear gives it (1,048,576) and no
  // max_position_embeddings.
  const bool model_max_length_only =
      a.family == ArchitectureFamily::kKimiLinear && !text.has("max_position_embeddings");
  a.max_position_embeddings =
      model_max_length_only ? text.positive("model_max_length")
                            : text.positive("max_position_embeddings", d.max_position_embeddings);
  a.tie_word_embeddings = text.boolean("tie_word_embeddings").value_or(d.tie_word_embeddings);
  // sglang v0.5.9 llama.py LlamaDecoderLayer: attention_bias, or the older key "bias"
  a.attention_bias = text.boolean("attention_bias").value_or(text.boolean("bias").value_or(false));
  parse_heads(text, d, a);
  set_family_attention_features(text, a);
  parse_moe(text, d, a);
  if (a.family == ArchitectureFamily::kGraniteHybrid && a.num_hidden_layers > 0) {
    parse_granite_hybrid(text, a);
  } else if (a.family == ArchitectureFamily::kJamba && a.num_hidden_layers > 0) {
    parse_jamba(text, a);
  } else if (a.family == ArchitectureFamily::kDeciLM && a.num_hidden_layers > 0) {
    parse_decilm(text, a);
  } else if (a.num_hidden_layers > 0) {
    parse_attention_layers(text, d, a);
  }
  if (a.is_qwen_hybrid()) parse_linear_attention(text, a);
  if (a.family == ArchitectureFamily::kKimiLinear && a.num_hidden_layers > 0) {
    parse_kimi_linear(text, a);
  }
  if (a.family == ArchitectureFamily::kGemma4) parse_gemma4(top, text, a);
  if (a.family == ArchitectureFamily::kLlama4 && a.num_hidden_layers > 0) parse_llama4(text, a);
  if (a.family == ArchitectureFamily::kPhiMoe) parse_phimoe(text, a);
  if (a.family == ArchitectureFamily::kGrok) parse_grok(text, a);
  if (a.family == ArchitectureFamily::kNemotronH && a.num_hidden_layers > 0) {
    parse_nemotron_h(text, a);
  }
  if (a.family == ArchitectureFamily::kQwen2Moe && a.sliding_window > 0) {
    // sglang qwen2_moe.py Qwen2MoeAttention and vllm qwen2_moe.py build no sliding window.
    text.error("layer_types",
               "sliding-window layers of a Qwen2-MoE config are not modelled: neither SGLang's "
               "nor vLLM's qwen2_moe.py windows attention");
  }
}

}  // namespace

// The model a class name is for: what comes before "For" ("Qwen3Moe" of Qwen3MoeForCausalLM).
std::string_view model_stem(std::string_view architecture) {
  return architecture.substr(0, architecture.find("For"));
}

// "; did you mean 'X'?" for a misspelt class name, nothing for another model's: every name
// shares "ForCausalLM" or "ForConditionalGeneration", so the closest whole name would point
// ApertusForCausalLM at ArceeForCausalLM. The closest class is proposed only when its model
// is at most one edit in four from the given one (Qwen3MoEForCausalLM, LlamaForCausalLMM).
std::string architecture_suggestion(std::string_view architecture) {
  const std::optional<std::string> best =
      closest_spelling(architecture, family_architecture_names());
  if (!best) return "";
  const std::string_view given = model_stem(architecture);
  const std::string_view known = model_stem(*best);
  const int allowed = std::max(1, static_cast<int>(std::max(given.size(), known.size())) / 4);
  return edit_distance(given, known) <= allowed ? "; did you mean '" + *best + "'?" : "";
}

// Llama 4's quantized exports (fbgemm_fp8, compressed-tensors, ModelOpt) name their modules
// under language_model. and keep routers, shared experts or attention unconverted by lists gpumem
// has not read per export.
constexpr const char* kQuantizedLlama4 =
    "a quantized Llama 4 checkpoint is not modelled; its bfloat16 checkpoint is";

Result<Architecture> parse_hf_config(const std::string& file, const YAML::Node& config,
                                     std::string name, Diagnostics& diags) {
  Diagnostics local;
  ConfigMap top(file, config, "'config'", local);
  if (!top.valid()) return config_failure(local, diags);

  Architecture a;
  a.name = std::move(name);
  std::optional<std::vector<std::string>> archs = top.strings("architectures");
  if (!archs && !top.has("architectures")) top.missing("architectures");
  if (archs && archs->empty()) top.error("architectures", "'architectures' is empty");
  if (!archs || archs->empty()) return config_failure(local, diags);
  a.hf_architecture = archs->front();
  std::optional<ArchitectureFamily> family = family_of(a.hf_architecture);
  if (std::optional<std::string_view> what = unmodelled_need(a.hf_architecture)) {
    local.error(location(file, top.get("architectures")[0]),
                "architecture '" + a.hf_architecture + "' is not modelled: gpumem does not model " +
                    std::string(*what));
    return config_failure(local, diags);
  }
  if (!family) {
    local.error(location(file, top.get("architectures")[0]),
                "unknown architecture '" + a.hf_architecture + "'" +
                    architecture_suggestion(a.hf_architecture));
    return config_failure(local, diags);
  }
  a.family = *family;
  a.model_type = top.string("model_type").value_or("");
  FamilyDefaults d = defaults_for(a.family);

  // Multimodal configs (Gemma 3) nest the language model under text_config.
  const YAML::Node text_node = top.get("text_config");
  std::optional<ConfigMap> nested;
  if (text_node.IsDefined()) {
    nested.emplace(file, text_node, "'text_config'", local);
    if (!nested->valid()) return config_failure(local, diags);
  }
  const ConfigMap& text = nested ? *nested : top;
  if (nested && (a.hf_architecture == "LlavaForConditionalGeneration" ||
                 a.hf_architecture == "LlavaNextForConditionalGeneration")) {
    std::optional<FamilyDefaults> llava = llava_text_defaults(text);
    if (!llava) return config_failure(local, diags);
    d = *llava;
  }

  std::optional<DType> dtype = read_dtype(text);
  if (!dtype && nested) dtype = read_dtype(top);
  a.dtype = dtype.value_or(DType::kFloat32);
  if (a.family == ArchitectureFamily::kMamba) {
    parse_mamba_stack(text, a);
    if (!local.empty()) return config_failure(local, diags);
    return a;
  }

  if (a.family == ArchitectureFamily::kDeepseekV4) {
    parse_deepseek_v4(text, a);
  } else {
    parse_text_model(top, text, d, a);
  }

  parse_rope(text, d.rope_theta, d.rope_local_base_freq, a);

  if (a.is_draft_head()) parse_eagle3(text, a);
  parse_vision_tower(top, a);
  // Qwen3-Next names its MTP layers mtp_num_hidden_layers (transformers Qwen3NextConfig).
  a.num_nextn_predict_layers =
      text.integer(a.is_qwen_hybrid() ? "mtp_num_hidden_layers" : "num_nextn_predict_layers")
          .value_or(0);

  YAML::Node quant = text.get("quantization_config");
  if (!quant.IsDefined() && nested) quant = top.get("quantization_config");
  if (quant.IsDefined() && a.family == ArchitectureFamily::kLlama4) {
    (text.has("quantization_config") ? text : top).error("quantization_config", kQuantizedLlama4);
  } else if (quant.IsDefined()) {
    ConfigMap q(file, quant, "'quantization_config'", local);
    if (q.valid()) parse_quantization(q, a.quantization);
  }

  if (!local.empty()) return config_failure(local, diags);
  return a;
}

Result<Architecture> load_hf_config(const std::string& path, Diagnostics& diags) {
  Diagnostics local;
  std::optional<YAML::Node> root = read_document(path, InputKind::kModelConfig, local);
  if (!root) return config_failure(local, diags);
  Result<Architecture> a = parse_hf_config(path, *root, path, diags);
  if (!a.ok() || a->quantization.method != QuantMethod::kNone) return a;
  // sglang v0.5.9 configs/model_config.py _parse_quant_hf_config: ModelOpt exports declare
  // their quantization in hf_quant_config.json beside config.json.
  const std::string quant_path =
      (std::filesystem::path(path).parent_path() / "hf_quant_config.json").string();
  if (!path_exists(quant_path)) return a;
  std::optional<YAML::Node> quant_root = read_document(quant_path, InputKind::kModelConfig, local);
  if (quant_root) {
    ConfigMap top(quant_path, *quant_root, "'hf_quant_config'", local);
    if (top.valid()) {
      const YAML::Node block = top.get("quantization");
      if (!block.IsDefined()) top.missing("quantization");
      if (block.IsDefined() && a->family == ArchitectureFamily::kLlama4) {
        top.error("quantization", kQuantizedLlama4);
      } else if (block.IsDefined()) {
        ConfigMap q(quant_path, block, "'quantization'", local);
        if (q.valid()) parse_modelopt(q, a->quantization);
      }
    }
  }
  if (!local.empty()) return config_failure(local, diags);
  return a;
}

}  // namespace gpumem
