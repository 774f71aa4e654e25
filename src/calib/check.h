// Predicted against measured: a scenario's ledger next to the probe's traces of the same
// start-up, per GPU and per step — the memory each step took and the free memory after it,
// the errors, a summary per component, the engine's key numbers (F, A, KV tokens), and a
// verdict against tolerances.
#ifndef GPUMEM_CALIB_CHECK_H_
#define GPUMEM_CALIB_CHECK_H_

#include <optional>
#include <string>
#include <vector>

#include "calib/trace.h"
#include "runtime/ledger.h"

namespace gpumem {

struct CheckTolerances {
  Bytes max_step_error = mib(32);      // any one step's |predicted - measured| taken
  Bytes median_step_error = mib(4);    // the median of those
  double fact_relative_error = 0.001;  // F, A and KV tokens
};

struct StepComparison {
  int rank = 0;
  std::string step;
  std::string component;  // context, communication, weights, kv, workspaces, graphs, other
  Bytes predicted_taken;
  std::optional<Bytes> measured_taken;
  Bytes predicted_free;
  std::optional<Bytes> measured_free;
  bool comparable = false;  // both ended ok and both are known
  Bytes uncertainty;        // the engine's stated uncertainty of this step, added to the limit

  Bytes error() const { return predicted_taken - *measured_taken; }
};

struct FactComparison {
  int rank = 0;
  std::string key;
  double predicted = 0;
  double measured = 0;
  double relative_error = 0;
};

struct CheckResult {
  std::string scenario;
  std::string probe;        // which probe made the traces, with its versions
  std::string calibration;  // the constants of the prediction
  std::vector<StepComparison> steps;
  std::vector<FactComparison> facts;
  Bytes median_abs_error;
  Bytes max_abs_error;
  int compared_steps = 0;
  std::vector<std::string> failures;  // why the verdict is "fail", one line each

  bool passed() const { return failures.empty(); }
};

// The component a step's memory belongs to, for the per-component summary.
std::string component_of(std::string_view step);

CheckResult check_ledger(const Ledger& predicted, const std::vector<Trace>& traces,
                         const CheckTolerances& tolerances);

// Markdown: the per-step table, the per-component summary, the facts and the verdict.
std::string render_check(const CheckResult& result);

// Median and maximum of absolute byte errors.
Bytes median_abs(std::vector<Bytes> errors);

}  // namespace gpumem

#endif  // GPUMEM_CALIB_CHECK_H_
