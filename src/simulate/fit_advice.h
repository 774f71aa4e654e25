// "Which flag change would have made it start?" For a scenario that does not fit, the
// nearest memory fraction (in steps of 0.01, up or down) and the largest CUDA-graph size
// below the current one that make every GPU complete its start-up, each found by
// simulating the changed scenario. The knobs are the engine's own (EngineModel::fit_knobs):
// SGLang's --mem-fraction-static and --cuda-graph-max-bs; vLLM's --gpu-memory-utilization
// and --max-cudagraph-capture-size (--cuda-graph-sizes before v0.11.1). The result goes into
// the ledger (Ledger::fit_advice), so the JSON ledger carries it too.
#ifndef GPUMEM_SIMULATE_FIT_ADVICE_H_
#define GPUMEM_SIMULATE_FIT_ADVICE_H_

#include <optional>
#include <string>

#include "catalog/scenario.h"
#include "simulate/simulate.h"

namespace gpumem {

// Searches every knob the scenario's engine offers (EngineModel::fit_knobs); an option per
// knob that has a starting value, the knob in `none_found` otherwise.
FitAdviceRecord find_fit(const Scenario& scenario, const SimulationInputs& inputs,
                         const Ledger& ledger);

// The advice as text for a report.
std::string advise_fit(const FitAdviceRecord& advice, const Scenario& scenario);

}  // namespace gpumem

#endif  // GPUMEM_SIMULATE_FIT_ADVICE_H_
