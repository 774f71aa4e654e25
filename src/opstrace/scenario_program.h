// A scenario's start-up as `gpumem simulate` runs it, taken apart: the simulated machine,
// its ranks and the engine's start-up program, so that `gpumem export-ops` can run the very
// same program over recording seams.
//
// simulate_scenario (engine/simulate.cc) builds the same pieces internally; they are built
// here the same way (the machine from the calibration, one rank per GPU with its pipeline
// stage and what other processes hold), and a test holds the two to the same ledger for
// every bundled probe scenario. When the engine models sit behind one interface, this
// file becomes a call to it.
#ifndef GPUMEM_OPSTRACE_SCENARIO_PROGRAM_H_
#define GPUMEM_OPSTRACE_SCENARIO_PROGRAM_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/simulate.h"
#include "sim/runner.h"

namespace gpumem {

struct ScenarioProgram {
  std::string engine;  // "sglang 0.5.9"
  SimMachine machine;
  std::vector<SimRank> ranks;
  NcclSettings nccl;  // the NCCL environment of every rank's process
  // The program reads the plan and the constants by reference; both live here.
  std::shared_ptr<const void> plan;
  std::shared_ptr<const SimulationConstants> constants;
  RankProgram program;
};

// nullopt when the scenario has errors (reported in `diags`).
std::optional<ScenarioProgram> scenario_program(const Scenario& scenario,
                                                const SimulationInputs& inputs, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_OPSTRACE_SCENARIO_PROGRAM_H_
