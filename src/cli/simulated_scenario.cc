#include "cli/simulated_scenario.h"

#include "cli/calibration_choice.h"
#include "simulate/fit_advice.h"

namespace gpumem::cli {

std::optional<SimulatedScenario> simulate_file(const Workspace& ws, const std::string& file,
                                               const std::string& calibration_pin,
                                               Diagnostics& diags) {
  std::optional<Scenario> s = load_scenario(file, ws.gpus, diags);
  if (!s || !diags.empty()) return std::nullopt;
  return simulate_loaded(ws, std::move(*s), calibration_pin, diags);
}

std::optional<SimulatedScenario> simulate_loaded(const Workspace& ws, Scenario scenario,
                                                 const std::string& calibration_pin,
                                                 Diagnostics& diags, Bytes min_headroom) {
  std::optional<Scenario> s = std::move(scenario);
  std::optional<SimulationConstants> constants = choose_calibration(ws, *s, calibration_pin, diags);
  if (!constants) return std::nullopt;
  auto cache = std::make_shared<SimulationCache>();
  SimulationInputs inputs{ws.gpus, ws.models, *constants, cache.get()};
  std::optional<Ledger> ledger = simulate_scenario(*s, inputs, diags);
  if (!ledger || !diags.empty()) return std::nullopt;
  if (!starts_safely(*ledger, min_headroom)) {
    ledger->fit_advice = find_fit(*s, inputs, *ledger, min_headroom);
  }
  return SimulatedScenario{std::move(*s), std::move(cache), inputs, std::move(*ledger)};
}

}  // namespace gpumem::cli
