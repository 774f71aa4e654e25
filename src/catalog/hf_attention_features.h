// The attention features each family's model class builds whatever its config says, or reads
// from keys of its own: which projections carry biases, q/k norms (per head, or over all heads
// and split over TP), attention sinks, sandwich norms and Qwen3-Next's output gate.
//
// A config key that would make SGLang and vLLM build different modules (a bias one engine
// hard-codes and the other reads) is refused at that key, saying which engine does what.
#ifndef GPUMEM_CATALOG_HF_ATTENTION_FEATURES_H_
#define GPUMEM_CATALOG_HF_ATTENTION_FEATURES_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Sets qkv_bias and o_proj_bias from attention_bias (read by the caller), then each family's
// own features. Expects the family and attention_bias already read.
void set_family_attention_features(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_ATTENTION_FEATURES_H_
