#include "catalog/hf_architectures.h"

#include <array>

namespace gpumem {
namespace {

struct FamilyByName {
  std::string_view architecture;
  ArchitectureFamily family;
};

constexpr std::array<FamilyByName, 63> kFamilies = {{
    {"LlamaForCausalLM", ArchitectureFamily::kLlama},
    {"MistralForCausalLM", ArchitectureFamily::kLlama},
    // InternLM3 (vllm registry.py maps it to llama.py's LlamaForCausalLM; sglang llama.py
    // InternLM3ForCausalLM(LlamaForCausalLM) adds nothing): Llama's tensors and names, its
    // biases refused unless off (hf_attention_features.cc).
    {"InternLM3ForCausalLM", ArchitectureFamily::kLlama},
    // SmolLM3 (sglang smollm3.py SmolLM3ForCausalLM(LlamaForCausalLM): RoPE skipped on the
    // no_rope_layers, no new module; vllm serves it through its Transformers backend, PR #22665,
    // with the same tensors under the checkpoint's names): Llama's weights and KV cache.
    {"SmolLM3ForCausalLM", ArchitectureFamily::kLlama},
    // Arcee AFM (vllm arcee.py PR #21296, sglang arcee.py PR #8154): Llama's attention and
    // norms, an MLP of up_proj and down_proj with ReLU² and no gate (hf_attention_features.cc).
    {"ArceeForCausalLM", ArchitectureFamily::kLlama},
    // NVIDIA's nemotron-nas (vllm nemotron_nas.py, PR #15008; sglang nemotron_nas.py, PR #9067).
    {"DeciLMForCausalLM", ArchitectureFamily::kDeciLM},
    {"Qwen2ForCausalLM", ArchitectureFamily::kQwen2},
    // MiMo's main model is Qwen2's; its MTP layers (model.mtp_layers.*) are left to a draft
    // model (sglang mimo.py MiMoForCausalLM.load_weights skips them; vllm mimo.py maps them
    // to nothing).
    {"MiMoForCausalLM", ArchitectureFamily::kQwen2},
    // The Qwen2 language model beside a ViT (vision_config, hf_vision.h).
    {"Qwen2VLForConditionalGeneration", ArchitectureFamily::kQwen2},
    {"Qwen2_5_VLForConditionalGeneration", ArchitectureFamily::kQwen2},
    {"Qwen3ForCausalLM", ArchitectureFamily::kQwen3},
    // The Qwen3 language model (text_config) beside a ViT (vision_config, hf_vision.h).
    {"Qwen3VLForConditionalGeneration", ArchitectureFamily::kQwen3},
    {"Qwen3MoeForCausalLM", ArchitectureFamily::kQwen3Moe},
    // The Qwen3-MoE language model (text_config) beside Qwen3-VL's ViT (hf_vision.h).
    {"Qwen3VLMoeForConditionalGeneration", ArchitectureFamily::kQwen3Moe},
    {"Qwen2MoeForCausalLM", ArchitectureFamily::kQwen2Moe},
    {"MixtralForCausalLM", ArchitectureFamily::kMixtral},
    {"DeepseekV2ForCausalLM", ArchitectureFamily::kDeepseekV2},
    {"DeepseekV3ForCausalLM", ArchitectureFamily::kDeepseekV3},
    {"Glm4MoeForCausalLM", ArchitectureFamily::kGlm4Moe},
    // GLM-4.7-Flash: DeepSeek-V3's MLA and MoE layout (sglang glm4_moe_lite.py builds
    // DeepseekV2AttentionMLA; vllm glm4_moe_lite.py DeepseekV2MLAAttention) with a float32
    // router (MoeConfig::router_float32).
    {"Glm4MoeLiteForCausalLM", ArchitectureFamily::kDeepseekV3},
    // DeepSeek-V3.2: V3's layers with a sparse-attention indexer in each (sglang
    // deepseek_v2.py, vllm deepseek_v2.py: the same class with index_topk set); GLM-5 is the
    // same model class in both engines (sglang glm4_moe.py GlmMoeDsaForCausalLM, vllm
    // deepseek_v2.py GlmMoeDsaForCausalLM(DeepseekV2ForCausalLM)).
    {"DeepseekV32ForCausalLM", ArchitectureFamily::kDeepseekV3},
    {"GlmMoeDsaForCausalLM", ArchitectureFamily::kDeepseekV3},
    {"GptOssForCausalLM", ArchitectureFamily::kGptOss},
    {"Phi3ForCausalLM", ArchitectureFamily::kPhi3},
    {"GraniteForCausalLM", ArchitectureFamily::kGranite},
    {"SeedOssForCausalLM", ArchitectureFamily::kSeedOss},
    {"Gemma2ForCausalLM", ArchitectureFamily::kGemma2},
    {"Gemma3ForConditionalGeneration", ArchitectureFamily::kGemma3},
    {"LlamaForCausalLMEagle3", ArchitectureFamily::kLlamaEagle3},
    {"MiniMaxM2ForCausalLM", ArchitectureFamily::kMiniMaxM2},
    {"Qwen3NextForCausalLM", ArchitectureFamily::kQwen3Next},
    // Qwen3.5 / 3.6: the Qwen3-Next layers (text_config), dense or MoE, beside a Qwen3-VL ViT.
    {"Qwen3_5ForConditionalGeneration", ArchitectureFamily::kQwen35},
    {"Qwen3_5MoeForConditionalGeneration", ArchitectureFamily::kQwen35},
    {"Qwen3_5ForCausalLM", ArchitectureFamily::kQwen35},
    {"Qwen3_5MoeForCausalLM", ArchitectureFamily::kQwen35},
    {"NemotronHForCausalLM", ArchitectureFamily::kNemotronH},
    // The Llama 4 text model (text_config) beside a ViT that SGLang builds only with
    // --enable-multimodal (hf_vision.h).
    {"Llama4ForConditionalGeneration", ArchitectureFamily::kLlama4},
    {"Llama4ForCausalLM", ArchitectureFamily::kLlama4},
    // Mistral Small 3.1/3.2: the Mistral (Llama-layout) language model beside a Pixtral ViT
    // (hf_vision.h), which vLLM skips when images are limited to 0.
    {"Mistral3ForConditionalGeneration", ArchitectureFamily::kLlama},
    // LLaVA and LLaVA-NeXT: a Llama or Mistral language model (text_config) beside a CLIP ViT
    // and a two-linear projector (hf_vision.h).
    {"LlavaForConditionalGeneration", ArchitectureFamily::kLlama},
    {"LlavaNextForConditionalGeneration", ArchitectureFamily::kLlama},
    {"PhiMoEForCausalLM", ArchitectureFamily::kPhiMoe},
    {"GraniteMoeHybridForCausalLM", ArchitectureFamily::kGraniteHybrid},
    {"Glm4ForCausalLM", ArchitectureFamily::kGlm4},
    // GLM-4.1V and GLM-4.5V/4.6V (sglang glm4v.py, glm4v_moe.py; vllm glm4_1v.py): the GLM-4
    // or GLM-4.5 language model (text_config) beside the GLM-V ViT (hf_vision.h).
    {"Glm4vForConditionalGeneration", ArchitectureFamily::kGlm4},
    {"Glm4vMoeForConditionalGeneration", ArchitectureFamily::kGlm4Moe},
    {"JambaForCausalLM", ArchitectureFamily::kJamba},
    // Grok 2 as SGLang's grok.py serves it (hf_config.cc parse_moe; SGLang only).
    {"Grok1ForCausalLM", ArchitectureFamily::kGrok},
    // OLMo 2 (sglang olmo2.py, vllm olmo2.py): Llama's projections and MLP, q_norm over the
    // whole query projection and k_norm over the KV projection, norms after attention and MLP.
    {"Olmo2ForCausalLM", ArchitectureFamily::kOlmo2},
    // OLMo 3: OLMo 2's layers, sliding-window attention on the layers layer_types names (vllm
    // transformers_utils/configs/olmo3.py rewrites the architecture to Olmo2ForCausalLM, whose
    // olmo2.py reads layer_types and scales RoPE on the full-attention layers only).
    {"Olmo3ForCausalLM", ArchitectureFamily::kOlmo2},
    // ERNIE 4.5 (sglang ernie4.py, vllm ernie45.py / ernie45_moe.py): Llama's attention and
    // MLP; the MoE form routes moe_layer_start_index on through experts, shared experts and an
    // e_score_correction_bias.
    {"Ernie4_5_ForCausalLM", ArchitectureFamily::kErnie45},
    {"Ernie4_5_MoeForCausalLM", ArchitectureFamily::kErnie45},
    // EXAONE 4.0 (sglang and vllm exaone4.py): Llama's projections and MLP, q/k norms per head,
    // norms after attention and MLP, sliding-window layers where a pattern is given.
    {"Exaone4ForCausalLM", ArchitectureFamily::kExaone4},
    // Kimi Linear (sglang and vllm kimi_linear.py): Kimi Delta Attention layers (kda_layers)
    // among MLA layers without RoPE (full_attn_layers), DeepSeek-style experts.
    {"KimiLinearForCausalLM", ArchitectureFamily::kKimiLinear},
    // Kimi-K2.5 (vllm and sglang kimi_k25.py): DeepSeek-V3's language model (text_config, the
    // Kimi-K2-Thinking layout) beside a MoonViT tower (vision_config).
    {"KimiK25ForConditionalGeneration", ArchitectureFamily::kDeepseekV3},
    // Gemma 4 (vllm gemma4.py, gemma4_mm.py): Gemma 3's layers, the full-attention ones with
    // global_head_dim and num_global_key_value_heads, experts beside the MLP (26B-A4B).
    {"Gemma4ForConditionalGeneration", ArchitectureFamily::kGemma4},
    {"Gemma4ForCausalLM", ArchitectureFamily::kGemma4},
    // Attention-free Mamba stacks (vllm mamba2.py, mamba.py; falcon_mamba shares mamba.py).
    {"Mamba2ForCausalLM", ArchitectureFamily::kMamba},
    {"MambaForCausalLM", ArchitectureFamily::kMamba},
    {"FalconMambaForCausalLM", ArchitectureFamily::kMamba},
    {"DeepseekV4ForCausalLM", ArchitectureFamily::kDeepseekV4},
    // Command R / R+ / Aya and Command R7B / A (vllm commandr.py CohereForCausalLM serves both;
    // sglang commandr.py registers Cohere2ForCausalLM as a subclass of it).
    {"CohereForCausalLM", ArchitectureFamily::kCohere},
    {"Cohere2ForCausalLM", ArchitectureFamily::kCohere},
}};

// Architectures the engines serve whose memory needs something gpumem does not model yet:
// refused by name, saying what, rather than read as a shape they do not have.
struct Unmodelled {
  std::string_view architecture;
  std::string_view what;
};

// Each `what` names the config's own keys or parts that no rule of gpumem reads; a name close
// to a modelled one (MiMoV2 beside MiMo) must not be answered with a did-you-mean.
constexpr std::array<Unmodelled, 11> kUnmodelled = {{
    {"MiniMaxM1ForCausalLM", "the per-request state of its lightning-attention layers"},
    {"MiniMaxText01ForCausalLM", "the per-request state of its lightning-attention layers"},
    {"FalconH1ForCausalLM",
     "its layers of attention and a Mamba-2 mixer side by side (two cache layers per layer)"},
    {"MiMoV2ForCausalLM",
     "its sliding-window layers, whose head counts and sizes (swa_num_key_value_heads, "
     "swa_head_dim, swa_v_head_dim) differ from its full-attention layers'"},
    {"MiMoV2FlashForCausalLM",
     "its sliding-window layers, whose head counts and sizes (swa_num_key_value_heads, "
     "swa_head_dim, swa_v_head_dim) differ from its full-attention layers'"},
    {"Qwen3OmniMoeForConditionalGeneration",
     "the thinker's audio and vision encoders and the talker and code2wav models beside its "
     "language model"},
    {"MiniMaxM3SparseForConditionalGeneration",
     "its block-sparse attention's index keys (sparse_attention_config) and its vision tower"},
    {"KimiK3ForConditionalGeneration",
     "its latent experts (routed_expert_hidden_size) and attention-residual blocks "
     "(attn_res_block_size) beside Kimi Linear's layers"},
    {"DeepseekOCRForCausalLM",
     "its SAM and CLIP vision encoders beside the DeepSeek-V2 language model"},
    {"MllamaForConditionalGeneration",
     "its cross-attention layers (cross_attention_layers), which attend to the vision "
     "encoder's outputs"},
    {"Gemma3nForConditionalGeneration",
     "its per-layer embeddings and the key-value cache its last layers share "
     "(num_kv_shared_layers)"},
}};

// Gemma3ForCausalLM is the text-only class of the same family.
constexpr FamilyByName kGemma3TextOnly = {"Gemma3ForCausalLM", ArchitectureFamily::kGemma3};

}  // namespace

std::optional<ArchitectureFamily> family_of(std::string_view architecture) {
  if (architecture == kGemma3TextOnly.architecture) return kGemma3TextOnly.family;
  for (const FamilyByName& f : kFamilies) {
    if (f.architecture == architecture) return f.family;
  }
  return std::nullopt;
}

std::vector<std::string> family_architecture_names() {
  std::vector<std::string> names;
  for (const FamilyByName& f : kFamilies) names.emplace_back(f.architecture);
  names.emplace_back(kGemma3TextOnly.architecture);
  return names;
}

std::optional<std::string_view> unmodelled_need(std::string_view architecture) {
  for (const Unmodelled& u : kUnmodelled) {
    if (u.architecture == architecture) return u.what;
  }
  return std::nullopt;
}

}  // namespace gpumem
