// A scenario file loaded, given its calibration constants and simulated: where simulate,
// report and plot start. Errors (in the file, the catalogs or the simulation) are reported
// in the diagnostics and give nothing.
#ifndef GPUMEM_CLI_SIMULATED_SCENARIO_H_
#define GPUMEM_CLI_SIMULATED_SCENARIO_H_

#include <memory>
#include <optional>
#include <string>

#include "catalog/scenario.h"
#include "cli/workspace.h"
#include "core/diagnostics.h"
#include "runtime/ledger.h"
#include "simulate/simulate.h"

namespace gpumem::cli {

struct SimulatedScenario {
  Scenario scenario;
  std::shared_ptr<SimulationCache> cache;  // shared by the fit advice's simulations
  SimulationInputs inputs;                 // refers to the workspace's catalogs and the cache
  Ledger ledger;                           // with its fit advice when it does not fit
};

// `calibration_pin` (from --calibration; empty for none) overrides the scenario's own choice.
// A start-up that does not start (or keeps less than `min_headroom` free at its tightest
// step) gets its fit advice (simulate/fit_advice.h) in the ledger.
std::optional<SimulatedScenario> simulate_file(const Workspace& ws, const std::string& file,
                                               const std::string& calibration_pin,
                                               Diagnostics& diags);
// The same for a scenario already read (from a file or a launch command).
std::optional<SimulatedScenario> simulate_loaded(const Workspace& ws, Scenario scenario,
                                                 const std::string& calibration_pin,
                                                 Diagnostics& diags, Bytes min_headroom = bytes(0));

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_SIMULATED_SCENARIO_H_
