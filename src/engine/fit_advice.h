// "Which flag change would have made it start?" For a scenario that does not fit, the
// smallest change of --mem-fraction-static (in steps of 0.01, nearest first, up or down) and
// the largest --cuda-graph-max-bs below the current one that make every GPU complete its
// start-up, each found by simulating the changed scenario.
#ifndef GPUMEM_ENGINE_FIT_ADVICE_H_
#define GPUMEM_ENGINE_FIT_ADVICE_H_

#include <optional>
#include <string>

#include "catalog/scenario.h"
#include "engine/simulate.h"

namespace gpumem {

struct FitAdvice {
  std::optional<double> mem_fraction_static;      // nearest value that fits
  std::optional<std::int64_t> cuda_graph_max_bs;  // largest smaller value that fits
};

FitAdvice find_fit(const Scenario& scenario, const SimulationInputs& inputs, const Ledger& ledger);

// The advice as text for a report ("" when the scenario fits).
std::string advise_fit(const Scenario& scenario, const SimulationInputs& inputs,
                       const Ledger& ledger);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_FIT_ADVICE_H_
