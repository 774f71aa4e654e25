// Every check of a scenario that needs the engine model: its flags, environment and patches,
// the parallel layout against the hardware, and everything against the model (heads, widths
// and vocabulary divisible by TP, context length, the draft model). Nothing is simulated.
#ifndef GPUMEM_ENGINE_VALIDATE_H_
#define GPUMEM_ENGINE_VALIDATE_H_

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"

namespace gpumem {

void validate_engine(const Scenario& scenario, const GpuCatalog& gpus, const ModelCatalog& models,
                     Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_VALIDATE_H_
