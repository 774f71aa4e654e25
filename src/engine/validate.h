// The engine-specific checks of a scenario: its flags against the engine's table, and the
// parallel layout against the hardware (and, once the model is known, against the model).
#ifndef GPUMEM_ENGINE_VALIDATE_H_
#define GPUMEM_ENGINE_VALIDATE_H_

#include "catalog/gpu_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"

namespace gpumem {

void validate_engine(const Scenario& scenario, const GpuCatalog& gpus, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_VALIDATE_H_
