// What an engine needs besides the scenario to plan a start-up: the catalogs the scenario's
// names resolve in, and the weight-list cache shared by the plans of one run (optional).
#ifndef GPUMEM_ENGINE_PLAN_INPUTS_H_
#define GPUMEM_ENGINE_PLAN_INPUTS_H_

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "weights/weight_list_cache.h"

namespace gpumem {

struct PlanInputs {
  const GpuCatalog& gpus;
  const ModelCatalog& models;
  WeightListCache* cache = nullptr;  // null: every weight list is built afresh
};

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_PLAN_INPUTS_H_
