#include "cli/workspace.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace gpumem::cli {

std::optional<Workspace> open_workspace(const GlobalOptions& global, Diagnostics& diags) {
  Workspace ws;
  if (!global.model_dir.empty()) {
    ws.model_dir = global.model_dir;
  } else if (const char* env = std::getenv("GPUMEM_MODEL_DIR"); env != nullptr && *env != 0) {
    ws.model_dir = env;
  } else {
    ws.model_dir = GPUMEM_DEFAULT_MODEL_DIR;
  }
  if (!std::filesystem::is_directory(ws.model_dir)) {
    diags.error({ws.model_dir, 0, 0}, "the model directory does not exist");
    return std::nullopt;
  }
  Result<GpuCatalog> gpus = GpuCatalog::load(ws.model_dir + "/gpu", diags);
  if (!gpus.ok()) {
    diags.error({ws.model_dir + "/gpu", 0, 0}, gpus.status().message());
    return std::nullopt;
  }
  ws.gpus = std::move(*gpus);
  if (!diags.empty()) return std::nullopt;
  return ws;
}

ExitCode report_diagnostics(const Diagnostics& diags) {
  if (diags.empty()) return kExitOk;
  std::fputs(diags.to_string().c_str(), stderr);
  return kExitBadInput;
}

}  // namespace gpumem::cli
