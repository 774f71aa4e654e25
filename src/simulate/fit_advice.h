// "Which flag change would have made it start?" For a scenario that does not start, every
// lever its engine offers (EngineModel::fit_knobs) is moved alone and the changed scenario
// simulated: the nearest memory fraction (steps of 0.01, up or down), the largest count below
// the current one (CUDA-graph sizes, vLLM's sequences and batched tokens), the longest request
// length in steps of 1,024, the switches (no CUDA graphs, an fp8 KV cache), and, for weights
// that do not fit, the fewest GiB of them vLLM would keep in CPU memory (--cpu-offload-gb,
// where gpumem models it for the model). Only what starts is proposed. "Starts" may ask for
// headroom: with --min-headroom SIZE, a start-up whose tightest GPU keeps less free at any step
// does not count as starting. The result goes into the ledger (Ledger::fit_advice), so the JSON
// ledger carries it too.
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
                         const Ledger& ledger, Bytes min_headroom = bytes(0));

// Every GPU completes its start-up, and the smallest headroom over GPUs and steps (key
// figures' min_headroom) is at least `min_headroom`.
bool starts_safely(const Ledger& ledger, Bytes min_headroom);

// The advice as text for a report.
std::string advise_fit(const FitAdviceRecord& advice, const Scenario& scenario);

}  // namespace gpumem

#endif  // GPUMEM_SIMULATE_FIT_ADVICE_H_
