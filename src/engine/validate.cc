#include "engine/validate.h"

#include "engine/sglang/plan.h"
#include "engine/vllm/plan.h"

namespace gpumem {

void validate_engine(const Scenario& scenario, const GpuCatalog& gpus, const ModelCatalog& models,
                     Diagnostics& diags) {
  if (scenario.engine.name == "sglang") {
    (void)sglang::make_plan(scenario, gpus, models, diags);
    return;
  }
  if (scenario.engine.name == "vllm") {
    (void)vllm::make_plan(scenario, gpus, models, diags);
    return;
  }
  diags.error(scenario.engine.name_loc, "engine '" + scenario.engine.name +
                                            "' is not modelled; gpumem models sglang and vllm");
}

}  // namespace gpumem
