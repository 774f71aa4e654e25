// "Which flag change would have made it start?" For a scenario that does not fit, the
// nearest memory fraction (in steps of 0.01, up or down) and the largest CUDA-graph size
// below the current one that make every GPU complete its start-up, each found by
// simulating the changed scenario. The knobs are the engine's own: SGLang's
// --mem-fraction-static and --cuda-graph-max-bs; vLLM's --gpu-memory-utilization and
// --max-cudagraph-capture-size (--cuda-graph-sizes before v0.11.1).
#ifndef GPUMEM_ENGINE_FIT_ADVICE_H_
#define GPUMEM_ENGINE_FIT_ADVICE_H_

#include <optional>
#include <string>

#include "catalog/scenario.h"
#include "engine/simulate.h"

namespace gpumem {

struct FitAdvice {
  std::optional<double> memory_fraction;   // nearest value that fits
  std::optional<std::int64_t> graph_size;  // largest smaller value that fits
};

FitAdvice find_fit(const Scenario& scenario, const SimulationInputs& inputs, const Ledger& ledger);

// The advice as text for a report ("" when the scenario fits).
std::string advise_fit(const Scenario& scenario, const SimulationInputs& inputs,
                       const Ledger& ledger);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_FIT_ADVICE_H_
