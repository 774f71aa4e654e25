#include "cli/calibration_choice.h"

#include <algorithm>
#include <filesystem>

#include "calib/calibration_file.h"
#include "core/directory.h"
#include "core/spelling.h"

namespace gpumem::cli {

std::optional<SimulationConstants> choose_calibration(const Workspace& ws, const Scenario& s,
                                                      const std::string& pin, Diagnostics& diags,
                                                      std::string_view probe) {
  const GpuSpec* gpu = ws.gpus.find(s.hardware.gpu);
  if (gpu == nullptr) return std::nullopt;  // reported by the scenario reader
  namespace fs = std::filesystem;
  const std::string dir = ws.model_dir + "/calibration";
  std::vector<std::string> files;
  if (Result<std::vector<fs::path>> entries = list_directory(dir); entries.ok()) {
    for (const fs::path& p : *entries) {
      if (p.extension() == ".yaml") files.push_back(p.string());
    }
  }
  const std::string wanted = !pin.empty() ? pin : s.calibration.value_or("");
  if (!wanted.empty()) {
    const std::string path = dir + "/" + wanted + ".yaml";
    if (!path_exists(path)) {
      std::vector<std::string> names;
      for (const std::string& f : files) names.push_back(fs::path(f).stem().string());
      const SourceLoc where = pin.empty() ? s.calibration_loc : SourceLoc{};
      diags.error(where, "unknown calibration '" + wanted + "'" + did_you_mean(wanted, names));
      return std::nullopt;
    }
    std::optional<CalibrationFile> f = load_calibration_file(path, diags);
    if (!f) return std::nullopt;
    return constants_from(*f, *gpu);
  }
  for (const std::string& path : files) {
    std::optional<CalibrationFile> f = load_calibration_file(path, diags);
    if (!f) return std::nullopt;
    if (f->gpu == gpu->name && f->probe == probe) return constants_from(*f, *gpu);
  }
  return default_constants(*gpu);
}

}  // namespace gpumem::cli
