#include "catalog/nextn_draft.h"

#include <array>
#include <utility>

namespace gpumem {

std::optional<std::string> nextn_architecture(const std::string& hf_architecture) {
  // sglang v0.5.9 configs/model_config.py _config_draft_model: DeepSeek-V3, V3.2 and GLM-5
  // draft with DeepseekV3ForCausalLMNextN, GLM-4.5/4.6/4.7 with Glm4MoeForCausalLMNextN. An
  // exported MTP layer (scripts/export_deepseek_nextn.py) names the NextN class itself, which
  // the catalog does not read: such a draft path is refused as an unknown architecture.
  constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kNextN = {{
      {"DeepseekV3ForCausalLM", "DeepseekV3ForCausalLMNextN"},
      {"DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN"},
      {"GlmMoeDsaForCausalLM", "DeepseekV3ForCausalLMNextN"},
      {"Glm4MoeForCausalLM", "Glm4MoeForCausalLMNextN"},
  }};
  for (const auto& [target, draft] : kNextN) {
    if (target == hf_architecture) return std::string(draft);
  }
  return std::nullopt;
}

Result<Architecture> nextn_draft(const Architecture& checkpoint) {
  std::optional<std::string> nextn = nextn_architecture(checkpoint.hf_architecture);
  if (!nextn) {
    return invalid_input("the MTP draft of " + checkpoint.hf_architecture +
                         " is not modelled (gpumem models DeepSeek-V3, V3.2, GLM-4.5 and "
                         "GLM-5 NextN drafts)");
  }
  // sglang v0.5.9 deepseek_common/deepseek_weight_loader.py _initialize_nextn_conf asserts
  // one MTP layer.
  if (checkpoint.num_nextn_predict_layers != 1) {
    return invalid_input(checkpoint.name + " has " +
                         std::to_string(checkpoint.num_nextn_predict_layers) +
                         " MTP layers (num_nextn_predict_layers); SGLang's NextN draft loads "
                         "exactly one");
  }
  Architecture d = checkpoint;
  d.name = checkpoint.name + " MTP layer";
  d.hf_architecture = *nextn;
  // _initialize_nextn_conf: nextn_layer_id = 0 if num_hidden_layers == 1 else
  // num_hidden_layers (an old export kept one layer).
  d.nextn_checkpoint_layer = checkpoint.num_hidden_layers == 1 ? 0 : checkpoint.num_hidden_layers;
  d.num_hidden_layers = 1;
  d.num_nextn_predict_layers = 0;
  d.layer_types.assign(1, LayerAttention::kFull);
  // deepseek_v2.py DeepseekV2DecoderLayer._is_layer_sparse: is_nextn makes the layer MoE
  // whatever first_k_dense_replace says (glm4_moe.py the same).
  d.moe.first_k_dense_replace = 0;
  d.moe.moe_layer_freq = 1;
  d.moe.decoder_sparse_step = 1;
  d.moe.mlp_only_layers.clear();
  // deepseek_nextn.py DeepseekModelNextN.__init__: a modelopt_fp4 checkpoint's MTP layer is
  // bfloat16 ("Overriding DeepseekV3ForCausalLMNextN quant config for modelopt_fp4").
  if (checkpoint.quantization.method == QuantMethod::kModelOptNvfp4) {
    d.quantization = Quantization{};
    d.quantization.kv_cache_fp8 = checkpoint.quantization.kv_cache_fp8;
  }
  return d;
}

}  // namespace gpumem
