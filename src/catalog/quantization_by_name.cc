#include "catalog/quantization_by_name.h"

#include <algorithm>
#include <cctype>

#include "catalog/config_map.h"
#include "catalog/hf_quantization.h"
#include "catalog/module_pattern.h"

namespace gpumem {
namespace {

// The lower-cased words of a checkpoint's last path component.
std::vector<std::string> name_words(std::string_view name) {
  while (!name.empty() && name.back() == '/') name.remove_suffix(1);
  if (const size_t slash = name.rfind('/'); slash != std::string_view::npos) {
    name.remove_prefix(slash + 1);
  }
  std::vector<std::string> words(1);
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

bool has(const std::vector<std::string>& words, std::string_view w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

// The 8-bit form where a word says so ("GPTQ-Int8", "8bit"); 4 bits otherwise.
int bits_named(const std::vector<std::string>& words) {
  return has(words, "int8") || has(words, "8bit") || has(words, "w8a16") ? 8 : 4;
}

// llm-compressor's schemes (compressed-tensors), every Linear but the head.
std::string compressed_tensors(const std::string& format, const std::string& weights,
                               const std::string& activations) {
  return R"({"quant_method": "compressed-tensors", "format": ")" + format +
         R"(", "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"], )" +
         R"("weights": )" + weights +
         (activations.empty() ? "" : R"(, "input_activations": )" + activations) + "}}}";
}

}  // namespace

std::vector<NamedQuantization> quantizations_in_name(std::string_view checkpoint_name) {
  const std::vector<std::string> words = name_words(checkpoint_name);
  std::vector<NamedQuantization> out;
  const std::string bits = std::to_string(bits_named(words));
  if (has(words, "awq")) {
    // AutoAWQ's quantize defaults (w_bit 4, q_group_size 128, zero_point, GEMM), which
    // Qwen's and the community's AWQ exports keep.
    out.push_back({"AWQ " + bits + "-bit, group 128, zero points (AutoAWQ's defaults)",
                   R"({"quant_method": "awq", "bits": )" + bits +
                       R"(, "group_size": 128, "zero_point": true, "version": "gemm"})"});
  } else if (has(words, "gptq")) {
    // GPTQ exports' common form (Qwen's -GPTQ-Int4/-Int8): group 128, symmetric, no activation
    // order.
    out.push_back({"GPTQ " + bits + "-bit, group 128, symmetric, no activation order",
                   R"({"quant_method": "gptq", "bits": )" + bits +
                       R"(, "group_size": 128, "sym": true, "desc_act": false})"});
  } else if (has(words, "autoround") || (has(words, "auto") && has(words, "round"))) {
    // Intel AutoRound's default export: symmetric integers in groups of 128, GPTQ's layout.
    out.push_back({"AutoRound " + bits + "-bit, group 128 (AutoRound's defaults)",
                   R"({"quant_method": "auto-round", "bits": )" + bits +
                       R"(, "group_size": 128, "sym": true})"});
  } else if (has(words, "w4a16")) {
    out.push_back({"compressed-tensors W4A16, group 128 (llm-compressor's W4A16 scheme)",
                   compressed_tensors("pack-quantized",
                                      R"({"num_bits": 4, "type": "int", "symmetric": true, )"
                                      R"("strategy": "group", "group_size": 128})",
                                      "")});
  } else if (has(words, "w8a8") || has(words, "int8")) {
    out.push_back({"compressed-tensors W8A8 INT8 per channel (llm-compressor's W8A8 scheme)",
                   compressed_tensors("int-quantized",
                                      R"({"num_bits": 8, "type": "int", "symmetric": true, )"
                                      R"("strategy": "channel"})",
                                      R"({"num_bits": 8, "type": "int", "symmetric": true, )"
                                      R"("strategy": "token", "dynamic": true})")});
  } else if (has(words, "nvfp4") || has(words, "fp4")) {
    // NVIDIA ModelOpt's NVFP4 export: E2M1 weights and activations, a scale per 16.
    out.push_back({"ModelOpt NVFP4, groups of 16, the head kept (ModelOpt's defaults)",
                   R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, )"
                   R"("exclude_modules": ["lm_head"]})"});
  } else if (has(words, "fp8")) {
    // Qwen's and DeepSeek's FP8 checkpoints: e4m3 in 128 x 128 blocks with a float32 scale
    // each; llm-compressor's FP8-Dynamic: e4m3 with a float32 scale per output row, first
    // where the name says "dynamic".
    const NamedQuantization blocks{
        "FP8 in 128 x 128 blocks (Qwen's and DeepSeek's FP8 checkpoints)",
        R"({"quant_method": "fp8", "activation_scheme": "dynamic", )"
        R"("weight_block_size": [128, 128]})"};
    const NamedQuantization channels{
        "FP8 per output channel (llm-compressor's FP8-Dynamic scheme)",
        compressed_tensors("float-quantized",
                           R"({"num_bits": 8, "type": "float", "symmetric": true, )"
                           R"("strategy": "channel"})",
                           R"({"num_bits": 8, "type": "float", "symmetric": true, )"
                           R"("strategy": "token", "dynamic": true})")};
    const bool dynamic = has(words, "dynamic");
    out.push_back(dynamic ? channels : blocks);
    out.push_back(dynamic ? blocks : channels);
  } else if (has(words, "bnb") && has(words, "4bit")) {
    // Unsloth's bnb-4bit exports: nf4 with nested absmax.
    out.push_back({"bitsandbytes nf4 with double quantization (Unsloth's bnb-4bit exports)",
                   R"({"quant_method": "bitsandbytes", "load_in_4bit": true, )"
                   R"("bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true})"});
  }
  return out;
}

Result<Architecture> with_named_quantization(const Architecture& base, const NamedQuantization& q) {
  Diagnostics diags;
  Architecture a = base;
  // An export of a checkpoint that ships quantized (DeepSeek-V3's FP8) is made from its
  // dequantized weights: the named quantization replaces the base's.
  a.quantization = Quantization{};
  ConfigMap m("quantization named", YAML::Load(q.config_json), "'quantization_config'", diags);
  if (m.valid()) parse_quantization(m, a.quantization);
  if (!diags.empty()) return invalid_input(q.label + ": " + diags.to_string());
  if (a.vision.present()) {
    // The exporters quantize the language model alone: Qwen's VL AWQ and GPTQ configs list
    // "visual" among modules_to_not_convert, AutoRound quantizes the language model's blocks
    // (block_name_to_quantize), llm-compressor's VL recipes ignore the tower.
    Result<ModulePattern> tower = ModulePattern::parse(
        "re:(?:.*\\.)?(?:visual|vision_tower|vision_model|multi_modal_projector)\\.");
    if (!tower.ok()) return tower.status();
    a.quantization.not_converted.add(std::move(*tower));
  }
  return a;
}

}  // namespace gpumem
