// The scenario a launch command implies: its engine, flags, environment and model
// (launch/launch_command.h), on the GPUs `--gpu` names, at the engine release `--engine-version`
// pins or else the newest gpumem models.
//
// `--gpu` takes a catalog GPU with an optional count, "h100" or "h100x2" (the "x" form as
// users write it); without a count the launch's own parallel layout (TP x PP x DP) says how
// many GPUs it occupies. A launch over several nodes (SGLang's --nnodes) splits that count
// evenly over them. The model the command names by its Hugging Face repository id
// (`Qwen/Qwen3-32B`) is the catalog entry whose model_id that is.
#ifndef GPUMEM_LAUNCH_LAUNCH_SCENARIO_H_
#define GPUMEM_LAUNCH_LAUNCH_SCENARIO_H_

#include <optional>
#include <string>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "launch/launch_command.h"

namespace gpumem {

struct LaunchOptions {
  std::string gpu;             // --gpu: "h200" or "h200x8"
  std::string engine_version;  // --engine-version; empty: the newest modelled
};

// --gpu read: a catalog GPU (name, alias or nvidia-smi name) and the count written after it
// ("h100x2"), 0 when none is.
struct GpuCount {
  std::string gpu;  // the catalog name
  int count = 0;
};
std::optional<GpuCount> parse_gpu_option(const std::string& option, const GpuCatalog& gpus,
                                         Diagnostics& diags);

std::optional<Scenario> scenario_from_launch(const EngineLaunch& command,
                                             const LaunchOptions& options, const GpuCatalog& gpus,
                                             const ModelCatalog& models, Diagnostics& diags);

// The scenario as a YAML file (scenarios/README.md), commented with where each value came
// from; what `gpumem scenario -- ...` writes, and reads back as the same scenario.
std::string launch_scenario_yaml(const Scenario& scenario, const EngineLaunch& command);

}  // namespace gpumem

#endif  // GPUMEM_LAUNCH_LAUNCH_SCENARIO_H_
