// model/calibration/<name>.yaml: the constants fitted for one GPU type (and the driver,
// CUDA and NCCL it was measured with), with their provenance and residuals. Written by
// `gpumem calibrate`; read by every command that simulates, which picks the file whose `gpu`
// matches the scenario's GPU unless the scenario pins one (`calibration: <name>`).
//
// Format:
//   name: h200-sxm-141gb
//   gpu: h200-sxm-141gb
//   probe: torch                        # optional: the traces' probe (calib/trace.h), or
//                                       # logs (fitted to start-up logs); gpumem-probe when
//                                       # absent
//   provenance: {<key>: <text>, ...}   # GPU, driver, runtime, NCCL, traces fitted and held out
//   constants: {<parameter>: <size>, ...}  # names from calib/parameters.h, sizes with units
//   residuals: {<key>: <text>, ...}
#ifndef GPUMEM_CALIB_CALIBRATION_FILE_H_
#define GPUMEM_CALIB_CALIBRATION_FILE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calib/trace.h"
#include "catalog/gpu_catalog.h"
#include "core/diagnostics.h"
#include "simulate/simulate.h"

namespace gpumem {

struct CalibrationFile {
  std::string name;
  std::string gpu;
  std::string probe{kRawProbe};
  std::vector<std::pair<std::string, std::string>> provenance;
  std::vector<std::pair<std::string, Bytes>> constants;
  std::vector<std::pair<std::string, std::string>> residuals;
};

// Reads and checks a calibration file: its GPU must be in `gpus`, every constant of
// calib/parameters.h given once (those only a PyTorch process has in a `probe: torch` or
// `probe: logs` file alone); errors as file:line:col in `diags`.
std::optional<CalibrationFile> load_calibration_file(const std::string& path,
                                                     const GpuCatalog& gpus, Diagnostics& diags);
// The same, from the file's text; `path` is used in messages.
std::optional<CalibrationFile> parse_calibration_file(const std::string& path,
                                                      const std::string& text,
                                                      const GpuCatalog& gpus, Diagnostics& diags);

// The YAML text of `file`, deterministic.
std::string calibration_file_text(const CalibrationFile& file);

// The published defaults, with the context folded into one number for `gpu` (calibrated
// and uncalibrated simulations then share one form).
SimulationConstants default_constants(const GpuSpec& gpu);

// The defaults with `file`'s constants applied; marked calibrated, and named log-calibrated
// when the file was fitted to start-up logs rather than probe traces.
SimulationConstants constants_from(const CalibrationFile& file, const GpuSpec& gpu);

}  // namespace gpumem

#endif  // GPUMEM_CALIB_CALIBRATION_FILE_H_
