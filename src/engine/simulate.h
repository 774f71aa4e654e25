// From a scenario to a ledger: resolves the engine model's plan (SGLang or vLLM), builds the
// simulated machine (GPU, driver, NCCL and allocator constants) and runs every rank's
// start-up.
#ifndef GPUMEM_ENGINE_SIMULATE_H_
#define GPUMEM_ENGINE_SIMULATE_H_

#include <optional>
#include <string>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/sglang/startup.h"
#include "engine/vllm/startup.h"
#include "nccl/nccl_constants.h"
#include "sim/device_constants.h"
#include "sim/ledger.h"

namespace gpumem {

// The constants a simulation takes from calibration, and where they came from.
struct SimulationConstants {
  std::string name = "published figures";  // calibration entry, or the defaults
  bool calibrated = false;                 // fitted to probe traces of this GPU
  DeviceConstants device;
  NcclConstants nccl;
  sglang::StartupConstants sglang;
  vllm::StartupConstants vllm;
};

struct SimulationInputs {
  const GpuCatalog& gpus;
  const ModelCatalog& models;
  SimulationConstants constants;
};

// The ledger of `scenario`; nullopt when the scenario has errors (reported in `diags`).
std::optional<Ledger> simulate_scenario(const Scenario& scenario, const SimulationInputs& inputs,
                                        Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_SIMULATE_H_
