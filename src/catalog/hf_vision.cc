#include "catalog/hf_vision.h"

#include <string>

namespace gpumem {

void parse_vision_tower(const ConfigMap& top, Architecture& a) {
  if (a.hf_architecture != "Gemma3ForConditionalGeneration") return;
  // sglang v0.5.9 gemma3_mm.py Gemma3ForConditionalGeneration.__init__ (read at 017f5d4):
  // SiglipVisionModel(config.vision_config) beside the language model, in every engine process.
  const YAML::Node node = top.get("vision_config");
  if (!node.IsDefined()) {
    top.error("architectures",
              "a Gemma3ForConditionalGeneration config needs 'vision_config' (its SigLIP vision "
              "tower); a text-only checkpoint is Gemma3ForCausalLM");
    return;
  }
  ConfigMap v(top.file(), node, "'vision_config'", top.diags());
  if (!v.valid()) return;
  const std::string type = v.string("model_type").value_or("siglip_vision_model");
  if (type != "siglip_vision_model") {
    v.error("model_type", "vision tower '" + type +
                              "' is not modelled: gpumem models Gemma 3's siglip_vision_model");
    return;
  }
  // transformers models/siglip/modeling_siglip.py SiglipVisionTransformer: the attention-pooling
  // head exists unless vision_use_head is false (Gemma 3's); sglang siglip.py never builds it,
  // so a checkpoint with one would not match what the engine loads.
  if (v.boolean("vision_use_head").value_or(true)) {
    v.error("vision_use_head",
            "a SigLIP tower with its attention-pooling head ('vision_use_head' true or absent) is "
            "not modelled: SGLang's siglip.py builds no head; Gemma 3 sets it false");
  }
  // transformers models/siglip/configuration_siglip.py SiglipVisionConfig.__init__ defaults.
  VisionTower& t = a.vision;
  t.hidden_size = v.positive("hidden_size", 768);
  t.intermediate_size = v.positive("intermediate_size", 3072);
  t.num_hidden_layers = v.positive("num_hidden_layers", 12);
  t.num_attention_heads = v.positive("num_attention_heads", 12);
  t.num_channels = v.positive("num_channels", 3);
  t.image_size = v.positive("image_size", 224);
  t.patch_size = v.positive("patch_size", 16);
  if (t.num_attention_heads > 0 && t.hidden_size % t.num_attention_heads != 0) {
    v.error("num_attention_heads", "'hidden_size' " + std::to_string(t.hidden_size) +
                                       " is not divisible by 'num_attention_heads' " +
                                       std::to_string(t.num_attention_heads));
  }
  if (t.patch_size > 0 && t.image_size % t.patch_size != 0) {
    v.error("patch_size", "'image_size' " + std::to_string(t.image_size) +
                              " is not a multiple of 'patch_size' " + std::to_string(t.patch_size));
  }
}

}  // namespace gpumem
