#include "calib/calibration_file.h"

#include <fmt/format.h>

#include <set>

#include "calib/parameters.h"
#include "catalog/yaml_reader.h"
#include "core/atomic_file.h"
#include "core/spelling.h"

namespace gpumem {
namespace {

std::vector<std::pair<std::string, std::string>> read_texts(MapReader& r, const char* key) {
  std::vector<std::pair<std::string, std::string>> out;
  YAML::Node n = r.child(key);
  if (!n.IsDefined()) return out;
  if (!n.IsMap()) {
    r.error(n, std::string("'") + key + "' must be a mapping");
    return out;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    const YAML::Node k = it->first;
    const YAML::Node v = it->second;
    out.emplace_back(k.Scalar(), v.IsScalar() ? v.Scalar() : YAML::Dump(v));
  }
  return out;
}

// A YAML scalar that reads back as the same string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace

std::optional<CalibrationFile> load_calibration_file(const std::string& path,
                                                     const GpuCatalog& gpus, Diagnostics& diags) {
  Result<std::string> text = read_file(path, InputKind::kCatalog);
  if (!text.ok()) {
    diags.error({}, text.status().message());
    return std::nullopt;
  }
  return parse_calibration_file(path, *text, gpus, diags);
}

std::optional<CalibrationFile> parse_calibration_file(const std::string& path,
                                                      const std::string& text,
                                                      const GpuCatalog& gpus, Diagnostics& diags) {
  Result<YamlDocument> doc = parse_yaml(path, text);
  if (!doc.ok()) {
    diags.error({}, doc.status().message());
    return std::nullopt;
  }
  const size_t before = diags.count();
  MapReader r(path, doc->root, "the calibration file", diags);
  CalibrationFile f;
  f.name = r.string("name", true).value_or("");
  f.gpu = r.string("gpu", true).value_or("");
  // A GPU name the catalog does not hold would match no scenario, and that GPU would be
  // simulated uncalibrated without a word.
  if (!f.gpu.empty() && gpus.find(f.gpu) == nullptr) {
    r.error(r.child("gpu"), "unknown GPU '" + f.gpu + "'" + did_you_mean(f.gpu, gpus.names()));
  }
  if (std::optional<std::string> probe = r.string("probe")) {
    f.probe = *probe;
    if (f.probe != kRawProbe && f.probe != kTorchProbe && f.probe != kLogsSource) {
      r.error(r.child("probe"), "unknown probe '" + f.probe + "'; gpumem knows " +
                                    std::string(kRawProbe) + ", " + std::string(kTorchProbe) +
                                    " and " + std::string(kLogsSource));
    }
  }
  f.provenance = read_texts(r, "provenance");
  f.residuals = read_texts(r, "residuals");
  // A serving engine's process (a torch-probe or a log calibration) has PyTorch's own costs.
  const bool pytorch_process = f.probe == kTorchProbe || f.probe == kLogsSource;
  if (YAML::Node c = r.child("constants", true); c.IsDefined()) {
    MapReader cr(path, c, "'constants'", diags);
    if (cr.valid()) {
      std::set<std::string> seen;
      for (auto it = c.begin(); it != c.end(); ++it) {
        const YAML::Node key = it->first;
        const std::string name = key.Scalar();
        if (find_parameter(name) == nullptr) {
          diags.error(location(path, key), "unknown calibration constant '" + name + "'" +
                                               did_you_mean(name, parameter_names()));
          continue;
        }
        // gpumem-probe's raw process has none of a PyTorch process's constants (zero).
        if (find_parameter(name)->pytorch_only && !pytorch_process) {
          diags.error(location(path, key), "calibration constant '" + name +
                                               "' belongs to a PyTorch process; only a "
                                               "calibration with 'probe: torch' or 'probe: "
                                               "logs' gives it");
          continue;
        }
        if (!seen.insert(name).second) {
          diags.error(location(path, key), "calibration constant '" + name + "' is given twice");
          continue;
        }
        if (std::optional<Bytes> v = scalar_size(path, it->second, "'" + name + "'", diags)) {
          f.constants.emplace_back(name, *v);
        }
      }
      // A constant left out would take its published default while every report says
      // "calibrated": a calibration gives them all.
      for (const Parameter& p : calibration_parameters()) {
        if (p.pytorch_only && !pytorch_process) continue;
        if (seen.count(std::string(p.name)) == 0) {
          diags.error(location(path, c), "calibration constant '" + std::string(p.name) +
                                             "' is missing; a calibration file gives every "
                                             "constant (gpumem calibrate writes them all)");
        }
      }
    }
  }
  r.finish();
  if (diags.count() != before) return std::nullopt;
  return f;
}

std::string calibration_file_text(const CalibrationFile& f) {
  std::string out =
      f.probe == kLogsSource
          ? "# Written by `gpumem calibrate --from-logs`: the context fitted by least squares to\n"
            "# the memory public start-up logs show before the weights.\n"
          : "# Written by `gpumem calibrate`: constants fitted by least squares to probe traces.\n";
  out += "# Do not edit by hand; run the calibration again.\n";
  out += fmt::format("name: {}\ngpu: {}\n", f.name, f.gpu);
  if (f.probe != kRawProbe) out += fmt::format("probe: {}\n", f.probe);
  out += "provenance:\n";
  for (const auto& [k, v] : f.provenance) out += fmt::format("  {}: {}\n", k, quoted(v));
  out += "constants:\n";
  for (const auto& [k, v] : f.constants) out += fmt::format("  {}: {}B\n", k, v.value());
  out += "residuals:\n";
  for (const auto& [k, v] : f.residuals) out += fmt::format("  {}: {}\n", k, quoted(v));
  return out;
}

SimulationConstants default_constants(const GpuSpec& gpu) {
  SimulationConstants c;
  fold_context(c, gpu);
  return c;
}

SimulationConstants constants_from(const CalibrationFile& f, const GpuSpec& gpu) {
  SimulationConstants c = default_constants(gpu);
  for (const auto& [name, value] : f.constants) find_parameter(name)->set(c, value);
  c.name = "calibration " + f.name;
  // Every report names the constants by this: a log calibration must not read as measured.
  if (f.probe == kLogsSource) {
    c.name += " (log-calibrated: its context fitted to public start-up logs, no probe trace)";
  }
  c.calibrated = true;
  return c;
}

}  // namespace gpumem
