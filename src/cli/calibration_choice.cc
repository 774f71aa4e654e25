#include "cli/calibration_choice.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "calib/calibration_cache.h"
#include "calib/calibration_file.h"
#include "calib/parameters.h"
#include "core/directory.h"
#include "core/file_name.h"
#include "core/spelling.h"

namespace gpumem::cli {

namespace {

int capability(const GpuSpec& g) {
  return g.compute_capability_major * 10 + g.compute_capability_minor;
}

// The sentence that names what a GPU's constants took from `donor`.
std::string borrowed(std::string_view what, const CalibrationFile& donor) {
  return ", with " + std::string(what) + " from calibration " + donor.name;
}

// A GPU with no calibration of its own takes its architecture's code sizes (the parameters
// marked per_architecture) from a calibration of a GPU of the same compute capability, the
// probe asked for first: published figures would charge no cuBLAS kernels at all and 10 KiB a
// graph node where the H100 and H200 measure 66-68 MiB and 2.8 KB alike. Nothing from another
// capability, whose binaries differ. nullptr when none has one.
const CalibrationFile* borrow_architecture_code(SimulationConstants& c, const GpuSpec& gpu,
                                                const std::vector<CalibrationFile>& files,
                                                const GpuCatalog& gpus, std::string_view probe) {
  const CalibrationFile* donor = nullptr;
  for (const CalibrationFile& f : files) {
    const GpuSpec* g = gpus.find(f.gpu);
    // A log calibration measured no code: what it holds was borrowed itself.
    if (g == nullptr || capability(*g) != capability(gpu) || f.probe == kLogsSource) continue;
    if (donor == nullptr || (f.probe == probe && donor->probe != probe)) donor = &f;
  }
  if (donor == nullptr) return nullptr;
  for (const auto& [name, value] : donor->constants) {
    if (const Parameter* p = find_parameter(name); p->per_architecture) p->set(c, value);
  }
  return donor;
}

// PyTorch's own costs (the parameters only a torch-probe calibration holds: its stream pool,
// ATen kernel module, first capture's generator segment, first kernel's module) for a GPU
// with no torch-probe calibration, taken from the torch-probe calibration of the GPU nearest
// in compute capability: they are the PyTorch process's, not the GPU's, where zero would be
// an optimistic answer for every GPU but the one measured.
const CalibrationFile* borrow_pytorch_costs(SimulationConstants& c, const GpuSpec& gpu,
                                            const std::vector<CalibrationFile>& files,
                                            const GpuCatalog& gpus) {
  const CalibrationFile* donor = nullptr;
  int donor_distance = 0;
  for (const CalibrationFile& f : files) {
    const GpuSpec* g = gpus.find(f.gpu);
    if (f.probe != kTorchProbe || g == nullptr) continue;
    const int distance = std::abs(capability(*g) - capability(gpu));
    if (donor == nullptr || distance < donor_distance) {
      donor = &f;
      donor_distance = distance;
    }
  }
  if (donor == nullptr) return nullptr;
  for (const auto& [name, value] : donor->constants) {
    if (const Parameter* p = find_parameter(name); p->pytorch_only) p->set(c, value);
  }
  return donor;
}

}  // namespace

std::optional<SimulationConstants> choose_calibration(const Workspace& ws, const Scenario& s,
                                                      const std::string& pin, Diagnostics& diags,
                                                      std::string_view probe,
                                                      bool log_calibrations) {
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
    const SourceLoc where = pin.empty() ? s.calibration_loc : SourceLoc{};
    // The name is a file name inside model/calibration/ (core/file_name.h).
    Result<std::string> path = file_in_directory(dir, wanted, ".yaml", "the calibration's name");
    if (!path.ok()) {
      diags.error(where, path.status().message());
      return std::nullopt;
    }
    if (!path_exists(*path)) {
      std::vector<std::string> names;
      for (const std::string& f : files) names.push_back(fs::path(f).stem().string());
      diags.error(where, "unknown calibration '" + wanted + "'" + did_you_mean(wanted, names));
      return std::nullopt;
    }
    std::optional<CalibrationFile> f = load_calibration_file(*path, ws.gpus, diags);
    if (!f) return std::nullopt;
    return constants_from(*f, *gpu);
  }
  // Every file is read (a broken one is an error even when another GPU's would be chosen),
  // and two for the scenario's GPU and probe are ambiguous: the scenario must pin one (a torch
  // calibration of the GPU stands beside its raw one: `probe: torch` keeps them apart).
  std::optional<std::vector<CalibrationFile>> read =
      load_calibration_files(dir, files, ws.gpus, diags);
  if (!read) return std::nullopt;
  const std::vector<CalibrationFile>& loaded = *read;
  const std::vector<std::string>& loaded_paths = files;
  // A serving engine runs in a PyTorch process: the GPU's torch-probe calibration when it has
  // one, else its log calibration (a PyTorch process too), else its raw one or the published
  // figures, with PyTorch's own costs borrowed.
  std::vector<std::string_view> wanted_probes{probe};
  if (probe == kTorchProbe && log_calibrations) wanted_probes.push_back(kLogsSource);
  if (probe == kTorchProbe) wanted_probes.push_back(kRawProbe);
  std::optional<SimulationConstants> constants;
  for (std::string_view wanted_probe : wanted_probes) {
    std::optional<std::size_t> chosen;
    for (std::size_t i = 0; i < loaded.size(); ++i) {
      if (ws.gpus.find(loaded[i].gpu) != gpu || loaded[i].probe != wanted_probe) continue;
      if (chosen) {
        diags.error({loaded_paths[i], 0, 0},
                    "a second calibration for GPU " + gpu->name + " and probe " +
                        std::string(wanted_probe) + " (the first is " + loaded_paths[*chosen] +
                        "); pin one with 'calibration: <name>' in the scenario or "
                        "--calibration");
        return std::nullopt;
      }
      chosen = i;
    }
    if (chosen && (wanted_probe == probe || wanted_probe == kLogsSource)) {
      return constants_from(loaded[*chosen], *gpu);
    }
    if (chosen) {
      constants = constants_from(loaded[*chosen], *gpu);
      break;
    }
  }
  const CalibrationFile* code = nullptr;
  if (!constants) {
    constants = default_constants(*gpu);
    code = borrow_architecture_code(*constants, *gpu, loaded, ws.gpus, probe);
  }
  const CalibrationFile* costs =
      probe == kTorchProbe ? borrow_pytorch_costs(*constants, *gpu, loaded, ws.gpus) : nullptr;
  const std::string sm = "sm_" + std::to_string(capability(*gpu)) + " code sizes";
  if (code != nullptr && code == costs) {
    constants->name += borrowed(sm + " and PyTorch's own costs", *code);
  } else {
    if (code != nullptr) constants->name += borrowed(sm, *code);
    if (costs != nullptr) constants->name += borrowed("PyTorch's own costs", *costs);
  }
  return constants;
}

}  // namespace gpumem::cli
