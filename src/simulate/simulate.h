// From a scenario to a ledger: the scenario's engine model (engine/engine_model.h) plans the
// start-up, the simulated machine (GPU, driver, NCCL and allocator constants) is built, and
// every rank's start-up program runs over it (sim/runner.h). `gpumem export-ops` (src/opstrace)
// takes the same planned start-up, machine and ranks, and runs the program over recording
// seams instead.
//
// A run of many simulations (a sweep, a fit search, a benchmark) shares a SimulationCache:
// weight lists built once, weight loads and CUDA-graph captures restored instead of replayed,
// each exact by construction (inputs the step cannot tell apart, to a pure function;
// sim/weight_load_memo.h, sim/capture_memo.h). The cache is the caller's: without one,
// every simulation builds and replays everything itself.
#ifndef GPUMEM_SIMULATE_SIMULATE_H_
#define GPUMEM_SIMULATE_SIMULATE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/engine_constants.h"
#include "engine/engine_model.h"
#include "nccl/nccl_constants.h"
#include "runtime/ledger.h"
#include "sim/capture_memo.h"
#include "sim/device_constants.h"
#include "sim/runner.h"
#include "sim/weight_load_memo.h"
#include "weights/weight_list_cache.h"

namespace gpumem {

// The constants a simulation takes from calibration, and where they came from.
struct SimulationConstants {
  std::string name = "published figures";  // calibration entry, or the defaults
  bool calibrated = false;                 // fitted to probe traces of this GPU
  DeviceConstants device;
  NcclConstants nccl;
  EngineConstants engines;
};

// What many simulations of one run share; safe to use from many threads at once.
struct SimulationCache {
  WeightListCache weight_lists;
  WeightLoadMemo weight_loads;
  CaptureMemo captures;
  // False: every CUDA-graph capture is replayed (the differential test and the benchmarks
  // compare both ways).
  bool memoize_captures = true;
  // How many memoized bodies (CUDA-graph captures) were restored rather than replayed.
  int capture_hits() const { return captures.hits(); }
};

struct SimulationInputs {
  const GpuCatalog& gpus;
  const ModelCatalog& models;
  SimulationConstants constants;
  SimulationCache* cache = nullptr;
};

// A scenario's start-up ready to run on the simulator: the engine's plan, the simulated
// machine it runs on, and one SimRank per GPU.
struct SimulatedStartup {
  std::unique_ptr<PlannedStartup> startup;
  SimMachine machine;
  std::vector<SimRank> ranks;
};

// nullopt when the scenario has errors (reported in `diags`).
std::optional<SimulatedStartup> simulated_startup(const Scenario& scenario,
                                                  const SimulationInputs& inputs,
                                                  Diagnostics& diags);

// The ledger of `scenario`; nullopt when the scenario has errors (reported in `diags`).
std::optional<Ledger> simulate_scenario(const Scenario& scenario, const SimulationInputs& inputs,
                                        Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_SIMULATE_SIMULATE_H_
