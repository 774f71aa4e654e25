#include "catalog/hf_attention_features.h"

#include <initializer_list>
#include <string>

namespace gpumem {
namespace {

// A family whose SGLang model builds no biases while vLLM's follows the config: each of `keys`
// set true is refused, naming the family and SGLang's file.
void refuse_biases(const ConfigMap& text, std::initializer_list<const char*> keys,
                   const std::string& family, const std::string& sglang_file) {
  for (const char* key : keys) {
    if (text.boolean(key).value_or(false)) {
      text.error(key, std::string("'") + key + "' true is not modelled for " + family +
                          ": SGLang's " + sglang_file + " builds no biases, vLLM's does");
    }
  }
}

// The Llama layout as both engines build it: vllm llama.py LlamaDecoderLayer biases the MLP by
// mlp_bias and q/k/v by qkv_bias where the config gives it, while sglang llama.py LlamaMLP builds
// no bias and its attention reads attention_bias (or bias) alone. A config where the two would
// build different tensors is refused, as are the classes' own keys with no modelled effect;
// Arcee's MLP has no gate.
void set_llama_layout_features(const ConfigMap& text, Architecture& a) {
  refuse_biases(text, {"mlp_bias"}, a.hf_architecture, "llama.py");
  if (const std::optional<bool> qkv = text.boolean("qkv_bias"); qkv && *qkv != a.attention_bias) {
    text.error("qkv_bias", "'qkv_bias' " + std::string(*qkv ? "true" : "false") +
                               " other than 'attention_bias' is not modelled for " +
                               a.hf_architecture +
                               ": vLLM's llama.py biases q/k/v by it, SGLang's llama.py by "
                               "attention_bias (or bias)");
  }
  // transformers modular_internlm3.py: `bias` also biases InternLM3's MLP, which neither
  // engine's llama.py builds.
  if (a.hf_architecture == "InternLM3ForCausalLM" && text.boolean("bias").value_or(false)) {
    text.error("bias",
               "'bias' true is not modelled for InternLM3ForCausalLM: the checkpoint then biases "
               "o_proj and the MLP, which neither engine's llama.py builds as such");
  }
  // vllm and sglang arcee.py ArceeMLP: up_proj and down_proj, "Only 'relu2' is supported".
  if (a.hf_architecture == "ArceeForCausalLM") {
    a.gated_mlp = false;
    const std::string act = text.string("hidden_act").value_or("relu2");
    if (act != "relu2") {
      text.error("hidden_act", "Unsupported activation: " + act +
                                   ". Only 'relu2' is supported for AFM (vLLM's and SGLang's "
                                   "arcee.py)");
    }
  }
  // sglang smollm3.py SmolLM3Model raises NotImplementedError for a sliding window.
  if (a.hf_architecture == "SmolLM3ForCausalLM" &&
      text.boolean("use_sliding_window").value_or(false)) {
    text.error("use_sliding_window",
               "'use_sliding_window' true is not modelled for SmolLM3ForCausalLM: SGLang's "
               "smollm3.py refuses it (NotImplementedError)");
  }
}

// vllm and sglang commandr.py CohereDecoderLayer: one LayerNorm (weight only) feeds attention and
// MLP; q/k/v, o_proj and the MLP without biases whatever the config says; with use_qk_norm, a
// LayerNorm weight per head of q and of k, each rank loading its own heads' rows.
void set_cohere_features(const ConfigMap& text, Architecture& a) {
  a.qkv_bias = false;
  a.o_proj_bias = false;
  a.parallel_block = true;
  a.qk_norm = text.boolean("use_qk_norm").value_or(false);
  a.qk_norm_per_layer = a.qk_norm;
  // Both engines' CohereAttention take hidden_size / num_attention_heads.
  if (a.head_dim != a.hidden_size / a.num_attention_heads) {
    text.error("head_dim", "'head_dim' " + std::to_string(a.head_dim) +
                               " other than hidden_size / num_attention_heads is not modelled "
                               "for " +
                               a.hf_architecture + ": both engines' commandr.py take the latter");
  }
  // sglang get_context_length reads model_max_length before max_position_embeddings, vllm
  // _get_and_verify_max_len takes the smaller of the two, and both commandr.py size the RoPE
  // cache by model_max_length: Command R v01's 131,072 against 8,192.
  if (const std::optional<std::int64_t> longest = text.integer("model_max_length");
      longest && *longest != a.max_position_embeddings) {
    text.error("model_max_length",
               "'model_max_length' " + std::to_string(*longest) +
                   " beside max_position_embeddings " + std::to_string(a.max_position_embeddings) +
                   " is not modelled for " + a.hf_architecture +
                   ": SGLang's context is model_max_length, vLLM's the smaller of the two");
  }
}

}  // namespace

void set_family_attention_features(const ConfigMap& text, Architecture& a) {
  a.qkv_bias = a.attention_bias;
  a.o_proj_bias = a.attention_bias;
  switch (a.family) {
    case ArchitectureFamily::kLlama:
    case ArchitectureFamily::kDeciLM:  // nemotron_nas.py builds LlamaAttention and LlamaMLP
      set_llama_layout_features(text, a);
      break;
    case ArchitectureFamily::kQwen2:
      // sglang v0.5.9 qwen2.py Qwen2Attention: qkv_proj bias=True, o_proj bias=False
      a.qkv_bias = true;
      a.o_proj_bias = false;
      break;
    case ArchitectureFamily::kSeedOss:
      // sglang (read at 2919537) seed_oss.py SeedOssAttention: qkv_proj bias=attention_bias
      // (default True), o_proj bias=False whatever attention_out_bias says; vllm seed_oss.py: qkv
      // bias=True always. Without q/k/v biases the engines would differ: refused.
      a.qkv_bias = text.boolean("attention_bias").value_or(true);
      if (!a.qkv_bias) {
        text.error("attention_bias",
                   "'attention_bias' false is not modelled for Seed-OSS: SGLang's seed_oss.py "
                   "then builds q/k/v without biases, vLLM's with them");
      }
      a.o_proj_bias = false;
      break;
    case ArchitectureFamily::kGranite:
      // sglang (read at 0b8c97e) granite.py GraniteAttention and GraniteMLP: no bias whatever the
      // config says; vllm granite.py takes attention_bias (or bias) and mlp_bias. A config asking
      // for biases would differ between the engines and is refused.
      refuse_biases(text, {"attention_bias", "bias", "mlp_bias"}, "Granite", "granite.py");
      a.qkv_bias = false;
      a.o_proj_bias = false;
      break;
    case ArchitectureFamily::kQwen2Moe:
      // sglang qwen2_moe.py Qwen2MoeDecoderLayer: qkv_bias = getattr(config, "qkv_bias", True),
      // o_proj bias=False
      a.qkv_bias = text.boolean("qkv_bias").value_or(true);
      a.o_proj_bias = false;
      break;
    case ArchitectureFamily::kQwen3:
    case ArchitectureFamily::kQwen3Moe:
      a.qk_norm = true;  // sglang v0.5.9 qwen3.py Qwen3Attention: q_norm, k_norm
      break;
    case ArchitectureFamily::kQwen3Next:
    case ArchitectureFamily::kQwen35:
      // sglang qwen3_next.py Qwen3HybridAttentionDecoderLayer: qkv_proj and o_proj without
      // bias, q_norm/k_norm per head, and q_proj twice as wide when attn_output_gate
      // (getattr default True)
      a.qkv_bias = false;
      a.o_proj_bias = false;
      a.qk_norm = true;
      a.attn_output_gate = text.boolean("attn_output_gate").value_or(true);
      break;
    case ArchitectureFamily::kGlm4Moe:
      // sglang v0.5.9 glm4_moe.py Glm4MoeAttention: o_proj bias=False
      a.o_proj_bias = false;
      a.qk_norm = text.boolean("use_qk_norm").value_or(false);
      break;
    case ArchitectureFamily::kGptOss:
      a.attention_sinks = true;  // sglang v0.5.9 gpt_oss.py GptOssAttention.sinks
      break;
    case ArchitectureFamily::kErnie45:
      // sglang ernie4.py builds LlamaAttention with bias=use_bias on q/k/v and o_proj; vllm
      // ernie45_moe.py never biases o_proj and ernie45.py (Llama's) ignores use_bias. Every
      // release has it false; true is refused.
      if (text.boolean("use_bias").value_or(false)) {
        text.error("use_bias",
                   "'use_bias' true is not modelled for ERNIE 4.5: SGLang's ernie4.py then biases "
                   "q/k/v and o_proj, vLLM's ernie45_moe.py not o_proj");
      }
      a.qkv_bias = false;
      a.o_proj_bias = false;
      break;
    case ArchitectureFamily::kOlmo2:
      // sglang (read at 6406e3a) and vllm olmo2.py Olmo2Attention: qkv_proj and o_proj biased as
      // attention_bias says; q_norm over hidden_size, k_norm over KV heads x head_dim, each
      // whole on every rank (the TP ranks' q and k are all-gathered, normalized, split again).
      // SGLang's olmo2.py of 2024 built qkv_proj with as many KV heads as query heads; the
      // release that first took num_key_value_heads (a GQA checkpoint) is UNCONFIRMED.
      a.qk_norm = true;
      a.qk_norm_per_layer = true;
      a.qk_norm_replicated = true;
      a.norms_after_sublayers = true;
      break;
    case ArchitectureFamily::kExaone4:
      // sglang exaone4.py Exaone4Attention: no biases whatever the config says; vllm exaone4.py
      // takes attention_bias (or bias). q_norm/k_norm RMSNorm(head_dim) per head, as Qwen3's.
      refuse_biases(text, {"attention_bias", "bias"}, "EXAONE 4.0", "exaone4.py");
      a.qkv_bias = false;
      a.o_proj_bias = false;
      a.qk_norm = true;
      a.norms_after_sublayers = true;
      // sglang exaone4.py takes hidden_size / num_attention_heads; vllm exaone4.py head_dim.
      if (a.head_dim != a.hidden_size / a.num_attention_heads) {
        text.error("head_dim", "'head_dim' " + std::to_string(a.head_dim) +
                                   " other than hidden_size / num_attention_heads is not "
                                   "modelled for EXAONE 4.0: SGLang's exaone4.py takes the "
                                   "latter, vLLM's the former");
      }
      break;
    case ArchitectureFamily::kMiniMaxM2: {
      // sglang (read at 01b5f57) minimax_m2.py MiniMaxM2Attention.__init__: qkv and o_proj without
      // bias; use_qk_norm (default false) adds q_norm and k_norm over all heads of the layer
      // (qk_norm_type per_layer, the only type it builds).
      a.qkv_bias = false;
      a.o_proj_bias = false;
      a.qk_norm = text.boolean("use_qk_norm").value_or(false);
      if (!a.qk_norm) {
        // vllm minimax_m2.py MiniMaxM2Attention builds q_norm and k_norm regardless.
        text.error("use_qk_norm",
                   "a MiniMax-M2 config without use_qk_norm is not modelled: SGLang's "
                   "minimax_m2.py then builds no q_norm/k_norm, vLLM's builds them regardless");
      }
      const std::string type = text.string("qk_norm_type").value_or("per_layer");
      if (a.qk_norm && type != "per_layer") {
        text.error("qk_norm_type", "Unsupported qk_norm_type: " + type +
                                       " (SGLang's minimax_m2.py builds per_layer only)");
      }
      a.qk_norm_per_layer = a.qk_norm;
      break;
    }
    case ArchitectureFamily::kGemma2:
      a.sandwich_norms = true;  // sglang v0.5.9 gemma2.py Gemma2DecoderLayer: four norms
      break;
    case ArchitectureFamily::kCohere:
      set_cohere_features(text, a);
      break;
    case ArchitectureFamily::kGrok:
      // sglang grok.py Grok1DecoderLayer: pre/post attention and pre/post MoE RMSNorms; q/k/v
      // and o_proj without bias.
      a.sandwich_norms = true;
      a.qkv_bias = false;
      a.o_proj_bias = false;
      break;
    case ArchitectureFamily::kGlm4:
      // vllm glm4.py Glm4DecoderLayer: qkv_proj biased by attention_bias (default false), o_proj
      // never (SGLang's biases are WeightRules::glm4_qkv_bias_always); input, post_attention,
      // post_self_attn and post_mlp norms.
      a.o_proj_bias = false;
      a.sandwich_norms = true;
      break;
    case ArchitectureFamily::kNemotronH:
      // sglang nemotron_h.py NemotronHAttention: qkv_proj and o_proj bias=False hard-coded
      a.qkv_bias = false;
      a.o_proj_bias = false;
      break;
    case ArchitectureFamily::kGemma3:
      a.qk_norm = true;  // sglang v0.5.9 gemma3_causal.py Gemma3Attention q_norm/k_norm
      a.sandwich_norms = true;
      break;
    case ArchitectureFamily::kGemma4:
      // vllm gemma4.py Gemma4Attention and Gemma4DecoderLayer: q_norm/k_norm per head (v_norm has
      // no weight), the four Gemma norms, a layer_scalar buffer.
      a.qk_norm = true;
      a.sandwich_norms = true;
      a.layer_scalar = true;
      break;
    case ArchitectureFamily::kLlamaEagle3:
      // sglang v0.5.9 llama_eagle3.py LlamaDecoderLayer: qkv_proj rebuilt with bias=False
      a.qkv_bias = false;
      break;
    default:
      break;
  }
}

}  // namespace gpumem
