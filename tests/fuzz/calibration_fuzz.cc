// libFuzzer target: the calibration file reader (model/calibration/*.yaml,
// calib/calibration_file.h). A file is returned exactly when there is no error; every error
// names the file; a file that is read names a catalog GPU and gives every constant once,
// none negative.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "calib/calibration_file.h"
#include "calib/parameters.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  static const std::string kFile = "model/calibration/fuzz.yaml";
  static const GpuCatalog gpus = [] {
    Diagnostics d;
    return *GpuCatalog::load(GPUMEM_SOURCE_DIR "/model/gpu", d);
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  Diagnostics diags;
  const std::optional<CalibrationFile> f = parse_calibration_file(kFile, text, gpus, diags);
  fuzz::require(f.has_value() == diags.empty(), "a file comes back exactly without errors",
                diags.to_string());
  fuzz::require_located(diags, kFile);
  if (f) {
    fuzz::require(gpus.find(f->gpu) != nullptr, "a read file names a catalog GPU", f->gpu);
    std::set<std::string> names;
    for (const auto& [name, value] : f->constants) {
      fuzz::require(names.insert(name).second, "each constant once", name);
      fuzz::require(value.value() >= 0, "no constant is negative", name);
    }
    // A PyTorch-only constant is given exactly by a 'probe: torch' file (zero otherwise).
    size_t expected = 0;
    for (const Parameter& p : calibration_parameters()) {
      if (!p.pytorch_only || f->probe == kTorchProbe) ++expected;
    }
    fuzz::require(names.size() == expected, "every constant is given");
  }
  return 0;
}
