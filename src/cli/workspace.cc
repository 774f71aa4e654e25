#include "cli/workspace.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/directory.h"
#include "hub/hub_download.h"

namespace gpumem::cli {

std::optional<Workspace> open_workspace(const GlobalOptions& global, Diagnostics& diags,
                                        bool download) {
  std::string dir;
  if (!global.model_dir.empty()) {
    dir = global.model_dir;
  } else if (const char* env = std::getenv("GPUMEM_MODEL_DIR"); env != nullptr && *env != 0) {
    dir = env;
  } else {
    dir = GPUMEM_DEFAULT_MODEL_DIR;
  }
  if (!is_directory_path(dir)) {
    diags.error({dir, 0, 0}, "the model directory does not exist");
    return std::nullopt;
  }
  Result<GpuCatalog> gpus = GpuCatalog::load(dir + "/gpu", diags);
  if (!gpus.ok()) {
    diags.error({dir + "/gpu", 0, 0}, gpus.status().message());
    return std::nullopt;
  }
  ModelHub hub{hub_settings_from_environment(), std::make_shared<CurlHubFetcher>()};
  hub.settings.download = hub.settings.download || download;
  Result<ModelCatalog> models = ModelCatalog::open(dir + "/llm", std::move(hub));
  if (!models.ok()) {
    diags.error({dir + "/llm", 0, 0}, models.status().message());
    return std::nullopt;
  }
  if (!diags.empty()) return std::nullopt;
  return Workspace{dir, std::move(*gpus), std::move(*models)};
}

void add_download_flag(CLI::App& app, bool& download) {
  app.add_flag("--download", download,
               "fetch the config and safetensors headers of a Hugging Face model that is neither "
               "in the catalog nor in the local cache");
}

ExitCode report_diagnostics(const Diagnostics& diags) {
  if (diags.empty()) return kExitOk;
  std::fputs(diags.to_string().c_str(), stderr);
  return kExitBadInput;
}

}  // namespace gpumem::cli
