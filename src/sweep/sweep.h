// Running a sweep: every point of the grid evaluated on a pool of threads, and each result
// handed on in grid order whatever the threads' timing (each point's result depends on that
// point alone). Results stream: a result is kept only until every point before it is done,
// and workers never run more than a few chunks ahead of the first unfinished point, so a
// sweep holds a bounded number of results however large its grid.
#ifndef GPUMEM_SWEEP_SWEEP_H_
#define GPUMEM_SWEEP_SWEEP_H_

#include <cstddef>
#include <functional>
#include <string>
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

// At most this many workers, and never more than the grid has points.
inline constexpr size_t kMaxThreads = 256;

// Receives the result of each point, in grid order, one call at a time (never two at once),
// on whichever thread finished the point that completes the order.
using ResultSink = std::function<void(size_t point, const PointResult& result)>;

struct SweepRun {
  int threads = 0;             // workers that ran (0: the caller's thread did the work)
  std::string thread_failure;  // why a worker could not be started; empty if none failed
};

SweepRun run_sweep(const Scenario& base, const Grid& grid, const SweepInputs& inputs,
                   const SweepOptions& options, const ResultSink& sink);

// Evaluates points 0..total-1 on the pool run_sweep uses: each worker calls `make_worker`
// once for an evaluator of its own and evaluates the points it claims with it.
using PointFunction = std::function<PointResult(size_t point)>;
SweepRun run_points(size_t total, const SweepOptions& options,
                    const std::function<PointFunction()>& make_worker, const ResultSink& sink);

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_SWEEP_H_
