#include "calib/calibration_file.h"

#include <fmt/format.h>

#include "calib/parameters.h"
#include "catalog/yaml_reader.h"
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

std::optional<CalibrationFile> load_calibration_file(const std::string& path, Diagnostics& diags) {
  Result<YamlDocument> doc = load_yaml_file(path, InputKind::kCatalog);
  if (!doc.ok()) {
    diags.error({}, doc.status().message());
    return std::nullopt;
  }
  const size_t before = diags.count();
  MapReader r(path, doc->root, "the calibration file", diags);
  CalibrationFile f;
  f.name = r.string("name", true).value_or("");
  f.gpu = r.string("gpu", true).value_or("");
  if (std::optional<std::string> probe = r.string("probe")) {
    f.probe = *probe;
    if (f.probe != kRawProbe && f.probe != kTorchProbe) {
      diags.error(location(path, doc->root["probe"]),
                  "unknown probe '" + f.probe + "'; gpumem knows " + std::string(kRawProbe) +
                      " and " + std::string(kTorchProbe));
    }
  }
  f.provenance = read_texts(r, "provenance");
  f.residuals = read_texts(r, "residuals");
  if (YAML::Node c = r.child("constants", true); c.IsDefined()) {
    MapReader cr(path, c, "'constants'", diags);
    if (cr.valid()) {
      for (auto it = c.begin(); it != c.end(); ++it) {
        const YAML::Node key = it->first;
        const std::string name = key.Scalar();
        if (find_parameter(name) == nullptr) {
          diags.error(location(path, key), "unknown calibration constant '" + name + "'" +
                                               did_you_mean(name, parameter_names()));
          continue;
        }
        if (std::optional<Bytes> v = scalar_size(path, it->second, "'" + name + "'", diags)) {
          f.constants.emplace_back(name, *v);
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
      "# Written by `gpumem calibrate`: constants fitted by least squares to probe traces.\n"
      "# Do not edit by hand; run the calibration again.\n";
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
  c.calibrated = true;
  return c;
}

}  // namespace gpumem
