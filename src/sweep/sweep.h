// Running a sweep: every point of the grid evaluated on a pool of threads, results in grid
// order whatever the threads' timing (each point's result depends on that point alone).
#ifndef GPUMEM_SWEEP_SWEEP_H_
#define GPUMEM_SWEEP_SWEEP_H_

#include <cstddef>
#include <functional>
#include <vector>

#include "catalog/scenario.h"
#include "sweep/evaluator.h"
#include "sweep/grid.h"
#include "sweep/point_result.h"

namespace gpumem::sweep {

struct SweepOptions {
  int threads = 1;  // worker threads; the caller's thread only waits and reports progress
  // Called on the caller's thread about ten times a second while points remain, with the
  // number of points done and the grid's size.
  std::function<void(size_t done, size_t total)> progress;
};

std::vector<PointResult> run_sweep(const Scenario& base, const Grid& grid,
                                   const SweepInputs& inputs, const SweepOptions& options);

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_SWEEP_H_
