// Evaluating sweep points: each point's scenario simulated as `gpumem simulate` would, and
// summarised (point_result.h).
//
// One PointEvaluator per thread: it owns the working scenario the points are written into
// and whatever it reuses from one point to the next, so evaluators share nothing mutable.
#ifndef GPUMEM_SWEEP_EVALUATOR_H_
#define GPUMEM_SWEEP_EVALUATOR_H_

#include <string>
#include <utility>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "simulate/simulate.h"
#include "sweep/grid.h"
#include "sweep/point_result.h"

namespace gpumem::sweep {

// What every point of a sweep shares.
struct SweepInputs {
  const GpuCatalog& gpus;
  const ModelCatalog& models;
  // The simulation constants of every GPU type the grid can reach, by catalog name: what
  // `gpumem simulate` would choose for a scenario on that GPU.
  std::vector<std::pair<std::string, SimulationConstants>> constants;
  // Shared by every point (weight lists, weight loads); null: each point builds its own.
  SimulationCache* cache = nullptr;
  // A point that completes with less free at its tightest step is kTight, not kFits.
  Bytes min_headroom = bytes(0);

  // REQUIRES: `gpu` names (or aliases) a GPU type whose constants are present.
  const SimulationConstants& constants_for(const std::string& gpu) const;
};

class PointEvaluator {
 public:
  // `base`, `grid` and `inputs` must outlive the evaluator.
  PointEvaluator(const Scenario& base, const Grid& grid, const SweepInputs& inputs);

  PointResult evaluate(size_t point);

 private:
  const SweepInputs& inputs_;
  PointScenarios scenarios_;
  std::string error_;
};

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_EVALUATOR_H_
