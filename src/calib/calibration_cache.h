// Reading model/calibration/*.yaml through the parse cache (catalog/parse_cache.h): every
// command that simulates reads each calibration file, since a broken one is an error even when
// another GPU's is chosen and an uncalibrated GPU borrows from the others, and yaml-cpp took a
// fifth of a one-GPU `gpumem simulate` over the seven bundled files. The key covers every
// file's bytes and the GPU catalog's names and aliases (a file naming a GPU the catalog lacks
// is an error); only a set that parsed without a diagnostic is cached.
#ifndef GPUMEM_CALIB_CALIBRATION_CACHE_H_
#define GPUMEM_CALIB_CALIBRATION_CACHE_H_

#include <optional>
#include <string>
#include <vector>

#include "calib/calibration_file.h"
#include "catalog/gpu_catalog.h"
#include "core/diagnostics.h"

namespace gpumem {

// The calibration files at `paths` (in `dir`), in that order, as load_calibration_file reads
// each; nothing after the first file with an error, which is in `diags`.
std::optional<std::vector<CalibrationFile>> load_calibration_files(
    const std::string& dir, const std::vector<std::string>& paths, const GpuCatalog& gpus,
    Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_CALIB_CALIBRATION_CACHE_H_
