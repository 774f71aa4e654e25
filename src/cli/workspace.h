// The catalogs a command works with, found once: the model directory (llm/, gpu/,
// calibration/) from --model-dir, $GPUMEM_MODEL_DIR or the bundled model/, the GPU catalog
// loaded from it and the model catalog listed from it. Models that are not catalog entries
// are looked up in the local Hugging Face cache (the environment says where:
// catalog/hf_cache.h), and downloaded into it only when asked (`download`, GPUMEM_DOWNLOAD=1).
#ifndef GPUMEM_CLI_WORKSPACE_H_
#define GPUMEM_CLI_WORKSPACE_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "cli/command.h"
#include "core/diagnostics.h"

namespace gpumem::cli {

struct Workspace {
  std::string model_dir;
  GpuCatalog gpus;
  ModelCatalog models;
};

// Loads the catalogs; catalog errors are reported in `diags`. `download`: a command's
// --download (the environment's GPUMEM_DOWNLOAD=1 allows it too).
std::optional<Workspace> open_workspace(const GlobalOptions& global, Diagnostics& diags,
                                        bool download = false);

// --download on `app`: every command that reads model references takes it.
void add_download_flag(CLI::App& app, bool& download);

// Prints `diags` to stderr; returns kExitBadInput when there is anything to print.
ExitCode report_diagnostics(const Diagnostics& diags);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_WORKSPACE_H_
