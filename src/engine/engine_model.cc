#include "engine/engine_model.h"

#include <algorithm>
#include <array>

#include "core/spelling.h"
#include "engine/sglang/engine.h"
#include "engine/vllm/engine.h"

namespace gpumem {

std::span<const EngineModel* const> engine_models() {
  static const std::array<const EngineModel*, 2> kEngines = {&sglang::engine_model(),
                                                             &vllm::engine_model()};
  return kEngines;
}

const EngineModel* find_engine(std::string_view name) {
  for (const EngineModel* e : engine_models()) {
    if (e->name() == name) return e;
  }
  return nullptr;
}

std::string engine_names() {
  std::string out;
  const std::span<const EngineModel* const> all = engine_models();
  for (size_t i = 0; i < all.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == all.size() ? " and " : ", ") + std::string(all[i]->name());
  }
  return out;
}

const FlagSpec* EngineModel::flag_spec(std::string_view flag) const {
  Result<const FlagSpec*> spec = match_flag(canonical_flag(flag), flags(), title());
  return spec.ok() ? *spec : nullptr;
}

const EngineArg* EngineModel::scenario_arg(const Scenario& scenario, std::string_view name) const {
  for (const EngineArg& a : scenario.engine.args) {
    const FlagSpec* spec = flag_spec(a.flag);
    if (spec != nullptr && spec->name == name) return &a;
  }
  return nullptr;
}

const EngineModel* engine_of(const Scenario& scenario, Diagnostics& diags) {
  if (const EngineModel* e = find_engine(scenario.engine.name)) return e;
  std::vector<std::string> names;
  for (const EngineModel* e : engine_models()) names.emplace_back(e->name());
  diags.error(scenario.engine.name_loc, "engine '" + scenario.engine.name +
                                            "' is not modelled; gpumem models " + engine_names() +
                                            did_you_mean(scenario.engine.name, names));
  return nullptr;
}

bool check_observed_keys(const Scenario& scenario, const EngineModel& engine, Diagnostics& diags) {
  const size_t errors_before = diags.count();
  for (const auto& [key, loc] : scenario.observed.given) {
    const std::span<const std::string_view> own = engine.observed_keys();
    if (std::find(own.begin(), own.end(), key) != own.end()) continue;
    for (const EngineModel* other : engine_models()) {
      const std::span<const std::string_view> keys = other->observed_keys();
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      diags.error(loc, "'" + key + "' is measured by " + std::string(other->title()) +
                           "; this scenario runs " + std::string(engine.name()));
    }
  }
  return diags.count() == errors_before;
}

}  // namespace gpumem
