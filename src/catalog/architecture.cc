#include "catalog/architecture.h"

#include <algorithm>

namespace gpumem {

std::string_view family_name(ArchitectureFamily f) {
  switch (f) {
    case ArchitectureFamily::kLlama:
      return "llama";
    case ArchitectureFamily::kQwen2:
      return "qwen2";
    case ArchitectureFamily::kQwen3:
      return "qwen3";
    case ArchitectureFamily::kQwen3Moe:
      return "qwen3_moe";
    case ArchitectureFamily::kMixtral:
      return "mixtral";
    case ArchitectureFamily::kGrok:
      return "grok";
    case ArchitectureFamily::kDeepseekV2:
      return "deepseek_v2";
    case ArchitectureFamily::kDeepseekV3:
      return "deepseek_v3";
    case ArchitectureFamily::kGlm4Moe:
      return "glm4_moe";
    case ArchitectureFamily::kGptOss:
      return "gpt_oss";
    case ArchitectureFamily::kPhi3:
      return "phi3";
    case ArchitectureFamily::kGemma2:
      return "gemma2";
    case ArchitectureFamily::kGemma3:
      return "gemma3";
    case ArchitectureFamily::kGemma4:
      return "gemma4";
    case ArchitectureFamily::kLlamaEagle3:
      return "llama_eagle3";
    case ArchitectureFamily::kSeedOss:
      return "seed_oss";
    case ArchitectureFamily::kGranite:
      return "granite";
    case ArchitectureFamily::kQwen2Moe:
      return "qwen2_moe";
    case ArchitectureFamily::kMiniMaxM2:
      return "minimax_m2";
    case ArchitectureFamily::kQwen3Next:
      return "qwen3_next";
    case ArchitectureFamily::kQwen35:
      return "qwen3_5";
    case ArchitectureFamily::kNemotronH:
      return "nemotron_h";
    case ArchitectureFamily::kLlama4:
      return "llama4";
    case ArchitectureFamily::kPhiMoe:
      return "phimoe";
    case ArchitectureFamily::kGraniteHybrid:
      return "granitemoehybrid";
    case ArchitectureFamily::kGlm4:
      return "glm4";
    case ArchitectureFamily::kOlmo2:
      return "olmo2";
    case ArchitectureFamily::kErnie45:
      return "ernie4_5";
    case ArchitectureFamily::kExaone4:
      return "exaone4";
    case ArchitectureFamily::kKimiLinear:
      return "kimi_linear";
    case ArchitectureFamily::kJamba:
      return "jamba";
    case ArchitectureFamily::kMamba:
      return "mamba";
    case ArchitectureFamily::kDeepseekV4:
      return "deepseek_v4";
    case ArchitectureFamily::kCohere:
      return "cohere";
    case ArchitectureFamily::kDeciLM:
      return "nemotron-nas";
  }
  return "?";
}

std::string_view quant_method_name(QuantMethod m) {
  switch (m) {
    case QuantMethod::kNone:
      return "none";
    case QuantMethod::kFp8Block:
      return "fp8 block-wise";
    case QuantMethod::kModelOptFp8:
      return "modelopt fp8 per-tensor";
    case QuantMethod::kModelOptFp8PerChannel:
      return "modelopt fp8 per-channel";
    case QuantMethod::kCompressedTensorsWna16:
      return "compressed-tensors wNa16";
    case QuantMethod::kMxfp4:
      return "mxfp4";
    case QuantMethod::kAwq:
      return "awq";
    case QuantMethod::kGptq:
      return "gptq";
    case QuantMethod::kModelOptNvfp4:
      return "modelopt nvfp4";
    case QuantMethod::kCompressedTensorsNvfp4:
      return "compressed-tensors nvfp4";
    case QuantMethod::kCompressedTensorsW8a8:
      return "compressed-tensors w8a8";
    case QuantMethod::kFp8PerTensor:
      return "fp8 per-tensor";
    case QuantMethod::kBitsAndBytes4:
      return "bitsandbytes 4-bit";
    case QuantMethod::kFbgemmFp8:
      return "fbgemm_fp8";
  }
  return "?";
}

bool named_method_skips_marlin(QuantMethod m) {
  return m == QuantMethod::kAwq || m == QuantMethod::kGptq;
}

std::int64_t VisionTower::clip_layers_built() const {
  std::int64_t built = 0;
  for (const std::int64_t index : feature_layers) {
    built = std::max(built, index < 0 ? num_hidden_layers + index + 1 : index);
  }
  return built;
}

bool Architecture::is_moe_layer(std::int64_t layer) const {
  if (moe.num_experts == 0 || layer < moe.first_k_dense_replace) return false;
  if (layer % moe.moe_layer_freq != 0 || (layer + 1) % moe.decoder_sparse_step != 0) return false;
  return std::find(moe.mlp_only_layers.begin(), moe.mlp_only_layers.end(), layer) ==
         moe.mlp_only_layers.end();
}

bool Architecture::is_sliding_layer(std::int64_t layer) const {
  return layer_types[static_cast<size_t>(layer)] == LayerAttention::kSliding;
}

bool Architecture::is_linear_layer(std::int64_t layer) const {
  return layer_types[static_cast<size_t>(layer)] == LayerAttention::kLinear;
}

std::int64_t Architecture::linear_layer_count() const {
  return std::count(layer_types.begin(), layer_types.end(), LayerAttention::kLinear);
}

bool Architecture::has_mlp(std::int64_t layer) const {
  if (!layer_intermediate_sizes.empty()) return layer_intermediate_size(layer) > 0;
  return !single_module_layers || layer_types[static_cast<size_t>(layer)] == LayerAttention::kNone;
}

std::int64_t Architecture::attention_layers(std::int64_t start, std::int64_t end) const {
  std::int64_t n = 0;
  for (std::int64_t l = start; l < end; ++l) {
    const LayerAttention t = layer_types[static_cast<size_t>(l)];
    n += t == LayerAttention::kFull || t == LayerAttention::kSliding ? 1 : 0;
  }
  return n;
}

}  // namespace gpumem
