// DeepSeek-V4's text model from its Hugging Face config (DeepseekV4ForCausalLM, model_type
// deepseek_v4): sizes, the compressed sparse attention, hyper-connections, the hash-routed
// first layers and the experts, read into an Architecture.
//
// The config is DeepSeek's own (transformers has no DeepseekV4Config): both engines read it
// as published, so every key gpumem needs is required, and what the engines' builders assert
// (a 512-wide latent, compress ratios of 0, 4 or 128, one ratio per decoder and MTP layer,
// heads that split into o_groups) is refused at its key.
#ifndef GPUMEM_CATALOG_HF_DEEPSEEK_V4_H_
#define GPUMEM_CATALOG_HF_DEEPSEEK_V4_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads everything of the text model but the dtype, RoPE scaling and quantization, which
// every family reads alike.
void parse_deepseek_v4(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_DEEPSEEK_V4_H_
