#include "engine/model_resolution.h"

#include <filesystem>

#include "core/directory.h"

namespace gpumem {
namespace {

std::optional<Architecture> from_catalog(const std::string& slug, const SourceLoc& where,
                                         const ModelCatalog& catalog, Diagnostics& diags) {
  Diagnostics entry_diags;
  Result<ModelEntry> entry = catalog.find(slug, entry_diags);
  if (!entry.ok()) {
    if (entry.status().code() == StatusCode::kNotFound) {
      diags.error(where, entry.status().message());
    } else {
      diags.append(entry_diags);
    }
    return std::nullopt;
  }
  return entry->architecture;
}

std::optional<Architecture> from_config(const std::string& path, const SourceLoc& where,
                                        Diagnostics& diags) {
  namespace fs = std::filesystem;
  std::string file = path;
  if (is_directory_path(file)) file = (fs::path(file) / "config.json").string();
  if (!path_exists(file)) {
    diags.error(where, "no Hugging Face config at '" + file + "'");
    return std::nullopt;
  }
  Result<Architecture> a = load_hf_config(file, diags);
  if (!a.ok()) return std::nullopt;
  return *a;
}

}  // namespace

std::optional<Architecture> resolve_model(const ScenarioModel& model, const ModelCatalog& catalog,
                                          Diagnostics& diags) {
  if (!model.hf_config_path.empty()) return from_config(model.hf_config_path, model.loc, diags);
  return from_catalog(model.catalog_name, model.loc, catalog, diags);
}

std::optional<Architecture> resolve_model_reference(const std::string& reference,
                                                    const SourceLoc& where,
                                                    const std::string& relative_to,
                                                    const ModelCatalog& catalog,
                                                    Diagnostics& diags) {
  namespace fs = std::filesystem;
  const bool looks_like_path =
      reference.find('/') != std::string::npos || reference.ends_with(".json");
  if (looks_like_path) {
    fs::path p(reference);
    if (p.is_relative() && path_exists(fs::path(relative_to).parent_path() / p)) {
      p = fs::path(relative_to).parent_path() / p;
    }
    if (path_exists(p)) return from_config(p.string(), where, diags);
  }
  return from_catalog(reference, where, catalog, diags);
}

}  // namespace gpumem
