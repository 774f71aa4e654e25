#include "sweep/evaluator.h"

namespace gpumem::sweep {

const SimulationConstants& SweepInputs::constants_for(const std::string& gpu) const {
  const std::string& name = gpus.find(gpu)->name;
  for (const auto& [g, c] : constants) {
    if (g == name) return c;
  }
  return constants.front().second;
}

PointEvaluator::PointEvaluator(const Scenario& base, const Grid& grid, const SweepInputs& inputs)
    : inputs_(inputs), scenarios_(base, grid) {}

PointResult PointEvaluator::evaluate(size_t point) {
  const Scenario& s = scenarios_.at(point, error_);
  if (!error_.empty()) return invalid_point(error_);
  Diagnostics diags;
  const SimulationInputs in{inputs_.gpus, inputs_.models, inputs_.constants_for(s.hardware.gpu),
                            inputs_.cache};
  std::optional<Ledger> ledger = simulate_scenario(s, in, diags);
  if (!ledger || !diags.empty()) {
    std::string reason;
    for (const Diagnostic& d : diags.errors()) reason += (reason.empty() ? "" : "; ") + d.message;
    return invalid_point(reason);
  }
  return summarize(*ledger, inputs_.min_headroom);
}

}  // namespace gpumem::sweep
