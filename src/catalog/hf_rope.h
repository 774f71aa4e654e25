// The rotary embedding of a Hugging Face config: the base (rope_theta, or rope_parameters as
// transformers 5 writes it, per layer type for models with sliding and full layers), Gemma's
// local base, how much of each head rotates (partial_rotary_factor, rotary_dim, the families
// that build no rotary embedding) and the scaling (rope_scaling's type and parameters), which
// size the engines' cos/sin caches.
#ifndef GPUMEM_CATALOG_HF_ROPE_H_
#define GPUMEM_CATALOG_HF_ROPE_H_

#include <yaml-cpp/yaml.h>

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// transformers 5 writes the RoPE parameters of a model with sliding and full layers per layer
// type (`rope_parameters: {full_attention: {...}, sliding_attention: {...}}`, as
// configuration_utils.py standardize_rope_params does for Gemma 3 and OLMo 3): the mapping of
// `layer_type`, else the flat mapping itself.
YAML::Node rope_parameters_of(const YAML::Node& node, const char* layer_type);

// Reads `text`'s rope_scaling (or transformers 5's rope_parameters) into `out`; `architecture`
// is the config's class, whose multimodal and Gemma 4 forms rename or ignore some types.
void parse_rope_scaling(const ConfigMap& text, const std::string& architecture, RopeScaling& out);

// Reads the RoPE keys of `text` into `a`, with the family's defaults where the config omits
// the base. Expects the family, attention kind, head size and MLA dimensions already read.
void parse_rope(const ConfigMap& text, double default_theta, double default_local_base,
                Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_ROPE_H_
