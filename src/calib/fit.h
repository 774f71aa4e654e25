// Fitting the simulator's constants to probe traces by least squares (Eigen).
//
// The simulator is (piecewise) linear in every calibration constant: a per-node cost times
// a node count, a context size once, a stack size per thread. So for each fitted run the
// fitter simulates once at the current constants and once per constant nudged by its step,
// which gives, per (run, GPU, step), the residual measured − predicted and its derivative
// by each constant; a minimum-norm least-squares solve (complete orthogonal decomposition)
// moves the constants, and a few such Gauss-Newton rounds absorb the rounding of sizes to
// pages. Constants stay non-negative. Runs marked held out are never fitted on; they are
// checked with the final constants, so the fit is judged on traces it did not see.
#ifndef GPUMEM_CALIB_FIT_H_
#define GPUMEM_CALIB_FIT_H_

#include <string>
#include <vector>

#include "calib/check.h"
#include "calib/parameters.h"
#include "calib/trace.h"
#include "catalog/scenario.h"

namespace gpumem {

struct FitRun {
  std::string dir;
  Scenario scenario;
  std::vector<Trace> traces;
  bool held_out = false;
};

struct FitOutcome {
  SimulationConstants constants;
  std::vector<std::pair<std::string, Bytes>> values;  // the fitted parameters, in order
  std::vector<CheckResult> fitted;
  std::vector<CheckResult> held_out;
  int iterations = 0;
};

Result<FitOutcome> fit_constants(const std::vector<FitRun>& runs, const GpuCatalog& gpus,
                                 const ModelCatalog& models, const SimulationConstants& start,
                                 const std::vector<const Parameter*>& parameters,
                                 const CheckTolerances& tolerances, int max_iterations = 4);

// Median and largest |error| over every comparable step of `checks`.
struct ErrorSummary {
  int steps = 0;
  Bytes median;
  Bytes max;
};
ErrorSummary summarize(const std::vector<CheckResult>& checks);

}  // namespace gpumem

#endif  // GPUMEM_CALIB_FIT_H_
