// A scenario file loaded, given its calibration constants and simulated: where simulate,
// report and plot start. Errors (in the file, the catalogs or the simulation) are reported
// in the diagnostics and give nothing.
#ifndef GPUMEM_CLI_SIMULATED_SCENARIO_H_
#define GPUMEM_CLI_SIMULATED_SCENARIO_H_

#include <optional>
#include <string>

#include "catalog/scenario.h"
#include "cli/workspace.h"
#include "core/diagnostics.h"
#include "engine/simulate.h"
#include "sim/ledger.h"

namespace gpumem::cli {

struct SimulatedScenario {
  Scenario scenario;
  SimulationInputs inputs;  // refers to the workspace's catalogs
  Ledger ledger;
};

// `calibration_pin` (from --calibration; empty for none) overrides the scenario's own choice.
std::optional<SimulatedScenario> simulate_file(const Workspace& ws, const std::string& file,
                                               const std::string& calibration_pin,
                                               Diagnostics& diags);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_SIMULATED_SCENARIO_H_
