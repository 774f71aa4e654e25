#include "calib/replayed_decisions.h"

#include <optional>
#include <string_view>
#include <variant>

namespace gpumem {
namespace {

// The readings an engine's decisions depend on, by the fact that records each.
struct Pin {
  std::string_view fact;
  std::optional<Bytes> ScenarioObserved::*field;
};
constexpr Pin kPins[] = {
    {"F (free before weights, world MIN)", &ScenarioObserved::free_before_weights},
    {"A (free after weights, world MIN)", &ScenarioObserved::free_after_weights},
    {"model_memory_usage", &ScenarioObserved::model_loading},
    {"torch peak increase (activation peak)", &ScenarioObserved::activation_peak},
    {"non-torch increase", &ScenarioObserved::non_torch_memory},
    {"cuda graph estimate", &ScenarioObserved::cuda_graph_estimate},
};

}  // namespace

Scenario with_replayed_decisions(Scenario s, const Trace& trace) {
  if (trace.probe != kTorchProbe) return s;
  for (const Pin& pin : kPins) {
    for (const Fact& f : trace.facts) {
      if (f.key != pin.fact) continue;
      if (const auto* b = std::get_if<Bytes>(&f.value)) s.observed.*pin.field = *b;
    }
  }
  return s;
}

}  // namespace gpumem
