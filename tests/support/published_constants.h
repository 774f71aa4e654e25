// The constants explain's replays run with in tests: the GPU catalog's published figures
// (no test log comes from a calibrated GPU's run of gpumem-probe), nothing for a GPU the
// catalog lacks.
#ifndef GPUMEM_TESTS_SUPPORT_PUBLISHED_CONSTANTS_H_
#define GPUMEM_TESTS_SUPPORT_PUBLISHED_CONSTANTS_H_

#include <optional>

#include "calib/calibration_file.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "support/test_catalogs.h"

namespace gpumem {

inline std::optional<SimulationConstants> published_constants(const Scenario& s, Diagnostics&) {
  const GpuSpec* gpu = test_catalogs().gpus.find(s.hardware.gpu);
  if (gpu == nullptr) return std::nullopt;
  return default_constants(*gpu);
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_PUBLISHED_CONSTANTS_H_
