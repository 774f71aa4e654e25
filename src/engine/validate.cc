#include "engine/validate.h"

#include "engine/engine_model.h"

namespace gpumem {

void validate_engine(const Scenario& scenario, const GpuCatalog& gpus, const ModelCatalog& models,
                     Diagnostics& diags) {
  if (const EngineModel* engine = engine_of(scenario, diags)) {
    (void)engine->plan(scenario, PlanInputs{gpus, models}, diags);
  }
}

}  // namespace gpumem
