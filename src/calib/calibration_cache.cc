#include "calib/calibration_cache.h"

#include <nlohmann/json.hpp>

#include "catalog/parse_cache.h"
#include "core/atomic_file.h"

namespace gpumem {
namespace {

constexpr std::string_view kSchema = "gpumem.calibration-cache/1";

// A new CalibrationFile field must be written and read below too.
static_assert(sizeof(CalibrationFile) == 3 * sizeof(std::string) + 3 * 24,
              "CalibrationFile changed: update calibration_cache.cc");

nlohmann::json to_json(const CalibrationFile& f) {
  nlohmann::json j;
  j["name"] = f.name;
  j["gpu"] = f.gpu;
  j["probe"] = f.probe;
  j["provenance"] = f.provenance;
  j["residuals"] = f.residuals;
  nlohmann::json constants = nlohmann::json::array();
  for (const auto& [name, value] : f.constants) constants.push_back({name, value.value()});
  j["constants"] = std::move(constants);
  return j;
}

// Throws nlohmann::json::exception on a missing key or a wrong type.
CalibrationFile from_json(const nlohmann::json& j) {
  CalibrationFile f;
  f.name = j.at("name").get<std::string>();
  f.gpu = j.at("gpu").get<std::string>();
  f.probe = j.at("probe").get<std::string>();
  f.provenance = j.at("provenance").get<std::vector<std::pair<std::string, std::string>>>();
  f.residuals = j.at("residuals").get<std::vector<std::pair<std::string, std::string>>>();
  for (const nlohmann::json& c : j.at("constants")) {
    f.constants.emplace_back(c.at(0).get<std::string>(), bytes(c.at(1).get<std::int64_t>()));
  }
  return f;
}

// What of the GPU catalog a calibration file's check reads: every name and alias.
std::string gpu_names(const GpuCatalog& gpus) {
  std::string out;
  for (const GpuSpec& g : gpus.gpus()) {
    out += g.name + '\n';
    for (const std::string& a : g.aliases) out += a + '\n';
  }
  return out;
}

}  // namespace

std::optional<std::vector<CalibrationFile>> load_calibration_files(
    const std::string& dir, const std::vector<std::string>& paths, const GpuCatalog& gpus,
    Diagnostics& diags) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const std::string& path : paths) {
    Result<std::string> text = read_file(path, InputKind::kCatalog);
    if (!text.ok()) {
      diags.error({}, text.status().message());
      return std::nullopt;
    }
    texts.emplace_back(path, std::move(*text));
  }
  const std::string cache_dir = parse_cache_dir();
  const std::uint64_t key =
      cache_dir.empty() ? 0 : parse_cache_key(kSchema, dir, texts, gpu_names(gpus));
  const std::string entry =
      cache_dir.empty() ? "" : parse_cache_file(cache_dir, "calibration", key);
  if (!entry.empty()) {
    if (std::optional<nlohmann::json> payload = read_parse_cache(entry, kSchema, key);
        payload && payload->is_array() && payload->size() == texts.size()) {
      try {
        std::vector<CalibrationFile> files;
        for (const nlohmann::json& f : *payload) files.push_back(from_json(f));
        return files;
      } catch (const nlohmann::json::exception&) {
        // A damaged entry: the files are parsed, and the entry written again.
      }
    }
  }
  std::vector<CalibrationFile> files;
  const size_t before = diags.count();
  for (const auto& [path, text] : texts) {
    std::optional<CalibrationFile> f = parse_calibration_file(path, text, gpus, diags);
    if (!f) return std::nullopt;
    files.push_back(std::move(*f));
  }
  if (!entry.empty() && diags.count() == before) {
    nlohmann::json payload = nlohmann::json::array();
    for (const CalibrationFile& f : files) payload.push_back(to_json(f));
    // A cache that cannot be written only costs the next run the parse.
    (void)write_parse_cache(entry, kSchema, key, std::move(payload));
  }
  return files;
}

}  // namespace gpumem
