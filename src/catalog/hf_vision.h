// The vision tower of a multimodal Hugging Face config: Gemma 3's SigLIP encoder, the
// Qwen2.5-VL and Qwen3-VL ViTs, Llama 4's and Pixtral's ViTs, LLaVA's and LLaVA-NeXT's CLIP,
// read from its vision_config (and the wrapper's projector fields) into an Architecture's
// `VisionTower`. Other multimodal wrappers are refused by their architecture name
// (hf_architectures.cc) until their towers are modelled.
#ifndef GPUMEM_CATALOG_HF_VISION_H_
#define GPUMEM_CATALOG_HF_VISION_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads `top`'s vision_config into `a.vision` when `a` is one of the wrappers above; a
// missing or unmodelled tower is an error at its key.
void parse_vision_tower(const ConfigMap& top, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_VISION_H_
