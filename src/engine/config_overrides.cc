#include "engine/config_overrides.h"

#include <string>

#include "catalog/config_map.h"
#include "catalog/hf_rope.h"

namespace gpumem {
namespace {

constexpr std::string_view kWayOut = "write the changed config.json and name it as the model";

// The RoPE scaling `node` (a mapping, or null for none) under `key`, read as config.json's;
// its errors are reported at `where`, since the flag's text has no lines of its own.
bool read_scaling(const std::string& key, const YAML::Node& node, const Architecture& a,
                  const SourceLoc& where, std::string_view flag, RopeScaling& out,
                  Diagnostics& diags) {
  out = RopeScaling{};
  if (node.IsNull()) return true;
  YAML::Node holder(YAML::NodeType::Map);
  holder[key] = node;
  Diagnostics local;
  const ConfigMap text(where.file, holder, "'" + key + "'", local);
  parse_rope_scaling(text, a.hf_architecture, out);
  for (const Diagnostic& d : local.errors())
    diags.error(where, std::string(flag) + ": " + d.message);
  return local.empty();
}

}  // namespace

bool apply_config_overrides(const FlagValues& v, std::string_view flag, Architecture& a,
                            Diagnostics& diags) {
  return apply_config_key_flag(v, flag, "", a, diags);
}

bool apply_config_key_flag(const FlagValues& v, std::string_view flag, std::string_view key,
                           Architecture& a, Diagnostics& diags) {
  const std::optional<std::string> text = v.string(flag);
  if (!text) return true;
  const SourceLoc where = *v.location(flag);
  YAML::Node value;
  try {
    value = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    diags.error(where, std::string(flag) + " is not valid JSON: " + e.msg);
    return false;
  }
  if (key.empty()) return apply_config_override_object(value, where, flag, a, diags);
  YAML::Node object(YAML::NodeType::Map);
  object[std::string(key)] = value;
  return apply_config_override_object(object, where, flag, a, diags);
}

bool apply_config_override_object(const YAML::Node& overrides, const SourceLoc& where,
                                  std::string_view flag, Architecture& a, Diagnostics& diags) {
  const std::string name(flag);
  if (!overrides.IsMap()) {
    diags.error(where, name + " must be a JSON object");
    return false;
  }
  if (a.vision.present()) {
    diags.error(where, name + " with " + a.hf_architecture +
                           " is not modelled: the engine updates the top-level config, while "
                           "the language model reads text_config; " +
                           std::string(kWayOut));
    return false;
  }
  const size_t errors_before = diags.count();
  for (auto it = overrides.begin(); it != overrides.end(); ++it) {
    const std::string key = it->first.Scalar();
    const YAML::Node value = it->second;
    if (key == "max_position_embeddings") {
      std::int64_t n = 0;
      if (!value.IsScalar() || !YAML::convert<std::int64_t>::decode(value, n) || n <= 0 ||
          n > kMaxConfigCount) {
        diags.error(where, name + ": 'max_position_embeddings' must be a positive integer up to " +
                               std::to_string(kMaxConfigCount));
        continue;
      }
      a.max_position_embeddings = n;
    } else if (key == "rope_scaling" || key == "rope_parameters") {
      RopeScaling scaling;
      if (read_scaling(key, value, a, where, flag, scaling, diags)) a.rope_scaling = scaling;
    } else if (key == "rope_theta") {
      // The base changes the cos/sin values, not the caches' sizes.
      continue;
    } else {
      diags.error(where, name + ": overriding '" + key +
                             "' is not modelled (gpumem applies max_position_embeddings, "
                             "rope_scaling and rope_theta, read once from config.json "
                             "otherwise); " +
                             std::string(kWayOut));
    }
  }
  return diags.count() == errors_before;
}

}  // namespace gpumem
