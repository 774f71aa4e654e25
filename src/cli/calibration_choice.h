// Which constants a simulation of a scenario uses: the calibration file the scenario pins,
// else the one whose `gpu` is the scenario's GPU and whose `probe` is the one asked for
// (model/calibration/*.yaml), else the published defaults — and every report then says the
// GPU is not calibrated. A serving engine is a PyTorch process, so a simulation asks for the
// torch probe's calibration and, where the GPU has none, its log calibration (`probe: logs`,
// gpumem calibrate --from-logs), its raw one or the published figures with PyTorch's own
// costs taken from the torch-probe calibration of the GPU nearest in compute capability;
// checking a gpumem-probe trace and calibrating ask for the raw process.
#ifndef GPUMEM_CLI_CALIBRATION_CHOICE_H_
#define GPUMEM_CLI_CALIBRATION_CHOICE_H_

#include <optional>
#include <string>

#include "calib/trace.h"
#include "catalog/scenario.h"
#include "cli/workspace.h"
#include "core/diagnostics.h"
#include "simulate/simulate.h"

namespace gpumem::cli {

// `pin` (from --calibration) overrides the scenario's own `calibration:`; `probe` names the
// process the simulation stands for (calib/trace.h): kTorchProbe falls back to kLogsSource,
// then kRawProbe. `log_calibrations` false passes over the log calibrations (the start of a
// log calibration's own fit).
std::optional<SimulationConstants> choose_calibration(const Workspace& ws, const Scenario& s,
                                                      const std::string& pin, Diagnostics& diags,
                                                      std::string_view probe = kTorchProbe,
                                                      bool log_calibrations = true);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_CALIBRATION_CHOICE_H_
