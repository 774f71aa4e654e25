// The constants `gpumem calibrate` fits to probe traces and a calibration file sets, by
// name. Each is one field of SimulationConstants, in bytes; the simulator depends on each
// (piecewise) linearly, so least squares over finite differences fits them.
#ifndef GPUMEM_CALIB_PARAMETERS_H_
#define GPUMEM_CALIB_PARAMETERS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "simulate/simulate.h"

namespace gpumem {

struct Parameter {
  std::string_view name;
  std::string_view meaning;
  Bytes (*get)(const SimulationConstants&);
  void (*set)(SimulationConstants&, Bytes);
  Bytes step;  // finite-difference step for the fit
  // Only a PyTorch process has it: fitted to the torch probe's traces alone (zero, and not
  // fitted, for gpumem-probe's raw process).
  bool pytorch_only = false;
  // The code an architecture runs (cuBLAS's kernels, a graph node, NCCL's kernel image and
  // launch stack): the same binaries on every GPU of one compute capability, so a GPU without
  // a calibration takes it from one of the same capability (cli/calibration_choice.h).
  bool per_architecture = false;
};

std::span<const Parameter> calibration_parameters();
const Parameter* find_parameter(std::string_view name);
std::vector<std::string> parameter_names();

// Calibrated files give the context as one number per GPU: this folds the default
// per-thread-slot formula of `gpu` into context_base, so `context` is that total.
void fold_context(SimulationConstants& c, const GpuSpec& gpu);

}  // namespace gpumem

#endif  // GPUMEM_CALIB_PARAMETERS_H_
