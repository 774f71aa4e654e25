#include "catalog/gpu_catalog_cache.h"

#include <nlohmann/json.hpp>

#include "catalog/parse_cache.h"

namespace gpumem {
namespace {

constexpr std::string_view kSchema = "gpumem.gpu-cache/2";

// A new GpuSpec field must be written and read below too; this stops the build until it is.
static_assert(sizeof(GpuSpec) == 240, "GpuSpec changed: update gpu_catalog_cache.cc");

nlohmann::json to_json(const GpuSpec& g) {
  nlohmann::json j;
  j["name"] = g.name;
  j["nvidia_smi_name"] = g.nvidia_smi_name;
  j["memory_total"] = g.memory_total.value();
  j["cuda_total"] = g.cuda_total ? nlohmann::json(g.cuda_total->value()) : nlohmann::json();
  j["compute_capability_major"] = g.compute_capability_major;
  j["compute_capability_minor"] = g.compute_capability_minor;
  j["sm_count"] = g.sm_count;
  j["max_threads_per_sm"] = g.max_threads_per_sm;
  j["memory_type"] = g.memory_type;
  j["interconnect"] = interconnect_name(g.interconnect);
  j["interconnect_detail"] = g.interconnect_detail;
  j["peer_to_peer"] = g.peer_to_peer;
  j["aliases"] = g.aliases;
  j["file"] = g.file;
  return j;
}

// Nothing for an unknown interconnect; throws nlohmann::json::exception on a missing key or
// a wrong type.
std::optional<GpuSpec> from_json(const nlohmann::json& j) {
  GpuSpec g;
  g.name = j.at("name").get<std::string>();
  g.nvidia_smi_name = j.at("nvidia_smi_name").get<std::string>();
  g.memory_total = bytes(j.at("memory_total").get<std::int64_t>());
  if (!j.at("cuda_total").is_null()) g.cuda_total = bytes(j.at("cuda_total").get<std::int64_t>());
  g.compute_capability_major = j.at("compute_capability_major").get<int>();
  g.compute_capability_minor = j.at("compute_capability_minor").get<int>();
  g.sm_count = j.at("sm_count").get<int>();
  g.max_threads_per_sm = j.at("max_threads_per_sm").get<int>();
  g.memory_type = j.at("memory_type").get<std::string>();
  const std::string link = j.at("interconnect").get<std::string>();
  if (link == interconnect_name(Interconnect::kNvlink)) {
    g.interconnect = Interconnect::kNvlink;
  } else if (link == interconnect_name(Interconnect::kPcie)) {
    g.interconnect = Interconnect::kPcie;
  } else {
    return std::nullopt;
  }
  g.interconnect_detail = j.at("interconnect_detail").get<std::string>();
  g.peer_to_peer = j.at("peer_to_peer").get<bool>();
  g.aliases = j.at("aliases").get<std::vector<std::string>>();
  g.file = j.at("file").get<std::string>();
  return g;
}

}  // namespace

std::uint64_t gpu_catalog_key(const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& files) {
  return parse_cache_key(kSchema, dir, files);
}

std::string gpu_cache_file(const std::string& cache_dir, std::uint64_t key) {
  return parse_cache_file(cache_dir, "gpu-catalog", key);
}

std::optional<std::vector<GpuSpec>> read_gpu_cache(const std::string& path, std::uint64_t key) {
  const std::optional<nlohmann::json> payload = read_parse_cache(path, kSchema, key);
  if (!payload || !payload->is_array()) return std::nullopt;
  try {
    std::vector<GpuSpec> gpus;
    for (const nlohmann::json& g : *payload) {
      std::optional<GpuSpec> gpu = from_json(g);
      if (!gpu) return std::nullopt;
      gpus.push_back(std::move(*gpu));
    }
    return gpus;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

Status write_gpu_cache(const std::string& path, std::uint64_t key,
                       const std::vector<GpuSpec>& gpus) {
  nlohmann::json payload = nlohmann::json::array();
  for (const GpuSpec& g : gpus) payload.push_back(to_json(g));
  return write_parse_cache(path, kSchema, key, std::move(payload));
}

}  // namespace gpumem
