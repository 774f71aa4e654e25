#include "calib/replayed_decisions.h"

#include <optional>
#include <string_view>
#include <variant>

#include "runtime/fact_ids.h"

namespace gpumem {
namespace {

// The readings an engine's decisions depend on, by the fact that records each. vLLM's weights
// reading is not among them: the weights are the same tensors whatever the constants, so the
// simulation reads what the replay read, and pinning it would load one tensor of that size
// in their place (a pinned figure is a log's truth: engine plans, pinned_weights), with
// another allocator rounding.
struct Pin {
  std::string_view fact;
  std::optional<Bytes> ScenarioObserved::*field;
};
constexpr Pin kPins[] = {
    {fact_id::kFreeBeforeWeights, &ScenarioObserved::free_before_weights},
    {fact_id::kFreeAfterWeights, &ScenarioObserved::free_after_weights},
    {fact_id::kActivationPeakBytes, &ScenarioObserved::activation_peak},
    {"non_torch_bytes", &ScenarioObserved::non_torch_memory},
    {"cuda_graph_estimate_bytes", &ScenarioObserved::cuda_graph_estimate},
};

}  // namespace

Scenario with_replayed_decisions(Scenario s, const Trace& trace) {
  if (trace.probe != kTorchProbe) return s;
  for (const Pin& pin : kPins) {
    for (const Fact& f : trace.facts) {
      if (f.id != pin.fact) continue;
      if (const auto* b = std::get_if<Bytes>(&f.value)) s.observed.*pin.field = *b;
    }
  }
  return s;
}

GpuCatalog with_traced_machine(const GpuCatalog& gpus, const Scenario& s, const Trace& trace) {
  const GpuSpec* gpu = gpus.find(s.hardware.gpu);
  if (trace.probe == kTorchProbe || gpu == nullptr || !trace.cuda_total ||
      gpu->cuda_total == trace.cuda_total)
    return gpus;
  GpuSpec machine = *gpu;
  machine.cuda_total = trace.cuda_total;
  return gpus.with(std::move(machine));
}

SimulationConstants with_replayed_program(SimulationConstants c, const Trace& trace) {
  if (trace.ops_format == "gpumem.ops.v1") c.device.pytorch_uses_named = false;
  return c;
}

}  // namespace gpumem
