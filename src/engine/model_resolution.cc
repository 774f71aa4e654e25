#include "engine/model_resolution.h"

#include "core/directory.h"
#include "weights/checkpoint_check.h"

namespace gpumem {

std::optional<ResolvedModel> resolve_model_reference(const std::string& reference,
                                                     const SourceLoc& where,
                                                     const std::string& relative_to,
                                                     const ModelCatalog& catalog,
                                                     Diagnostics& diags) {
  const size_t before = diags.count();
  Result<ResolvedModel> m = catalog.resolve(reference, relative_to, diags);
  if (m.ok()) return std::move(*m);
  // A config file's own errors are located in it already; anything else belongs here.
  if (diags.count() == before) diags.error(where, m.status().message());
  return std::nullopt;
}

std::optional<ResolvedModel> resolve_scenario_model(const Scenario& scenario,
                                                    const FlagValues& flags,
                                                    std::string_view model_flag,
                                                    const ModelCatalog& catalog,
                                                    Diagnostics& diags) {
  const ScenarioModel& model = scenario.model;
  std::optional<ResolvedModel> named;
  if (!model.hf_config_path.empty()) {
    if (!path_exists(model.hf_config_path)) {
      diags.error(model.loc, "no Hugging Face config at '" + model.hf_config_path + "'");
      return std::nullopt;
    }
    named = resolve_model_reference(model.hf_config_path, model.loc, "", catalog, diags);
  } else if (!model.catalog_name.empty()) {
    named = resolve_model_reference(model.catalog_name, model.loc, scenario.file, catalog, diags);
  }
  const std::optional<std::string> flag = flags.string(model_flag);
  if (!flag) return named;
  const SourceLoc where = *flags.location(model_flag);
  std::optional<ResolvedModel> by_flag =
      resolve_model_reference(*flag, where, scenario.file, catalog, diags);
  if (!model.given() || !named || !by_flag) return model.given() ? named : by_flag;
  if (named->identity != by_flag->identity) {
    diags.error(where, std::string(model_flag) + " '" + *flag + "' (" + by_flag->origin +
                           ") names another model than the scenario's 'model:' (" + named->origin +
                           "); give one of them");
    return std::nullopt;
  }
  return named;
}

std::optional<std::string> weights_source(const ResolvedModel& model, const SourceLoc& where,
                                          Diagnostics& diags) {
  constexpr const char* kArithmetic = "config.json arithmetic";
  if (!model.checkpoint) return kArithmetic;
  const SafetensorsCheckpoint& c = *model.checkpoint;
  Result<std::vector<CheckpointTensor>> derived =
      checkpoint_tensors(model.architecture, checkpoint_options_from(c.tensors));
  if (!derived.ok()) {
    return std::string(kArithmetic) +
           " (its safetensors headers are at hand but not checked: " + derived.status().message() +
           ")";
  }
  const std::vector<std::string> differences = checkpoint_differences(*derived, c);
  if (!differences.empty()) {
    constexpr size_t kShown = 5;
    std::string text = model.architecture.name +
                       ": the checkpoint's safetensors headers do not declare the tensors "
                       "gpumem derives from its config.json:";
    for (size_t i = 0; i < differences.size() && i < kShown; ++i) text += "\n  " + differences[i];
    if (differences.size() > kShown) {
      text += "\n  ... and " + std::to_string(differences.size() - kShown) + " more";
    }
    diags.error(where, text);
    return std::nullopt;
  }
  return "safetensors headers (" + std::to_string(c.tensors.size()) + " tensors in " +
         std::to_string(c.shards) + (c.shards == 1 ? " file" : " files") +
         ", as config.json derives them)";
}

}  // namespace gpumem
