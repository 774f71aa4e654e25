// The engine flags that change config.json values before the engine reads the model: SGLang's
// --json-model-override-args (configs/model_config.py ModelConfig.__init__ parses it, and
// hf_transformers_utils.py get_config calls config.update with it) and vLLM's --hf-overrides
// (config/model.py ModelConfig.hf_overrides, applied by transformers_utils/config.py get_config
// with config.update). Users set them to stretch the context: a YaRN rope_scaling on Qwen3, a
// longer max_position_embeddings.
//
// gpumem applies the keys whose effect it derives after reading the config: the context
// length each engine derives (max_position_embeddings, times the rope factor by the engine's
// own rule) and the RoPE cos/sin caches (the scaling's type, factor and original length). Any
// other key (layer counts, widths, dtypes, quantization) would change what gpumem read from
// config.json once, so it is refused by name, with the way out: write the changed config.json
// and name it as the model. A multimodal model is refused too: the engines update its
// top-level config, while its language model reads text_config.
#ifndef GPUMEM_ENGINE_CONFIG_OVERRIDES_H_
#define GPUMEM_ENGINE_CONFIG_OVERRIDES_H_

#include <yaml-cpp/yaml.h>

#include <string_view>

#include "catalog/architecture.h"
#include "core/diagnostics.h"
#include "engine/flag_table.h"

namespace gpumem {

// Applies the JSON object `flag` holds in `v` (when given) to `a`; false after an error, each
// reported at the flag's value.
bool apply_config_overrides(const FlagValues& v, std::string_view flag, Architecture& a,
                            Diagnostics& diags);
// The same for a flag whose JSON value is config.json's `key` (vLLM's --rope-scaling before
// 0.12.0: rope_scaling).
bool apply_config_key_flag(const FlagValues& v, std::string_view flag, std::string_view key,
                           Architecture& a, Diagnostics& diags);
// The same for a parsed object, reported at `where` as `flag`'s.
bool apply_config_override_object(const YAML::Node& overrides, const SourceLoc& where,
                                  std::string_view flag, Architecture& a, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_CONFIG_OVERRIDES_H_
