#include "catalog/gpu_catalog_cache.h"

#include <nlohmann/json.hpp>

#include "catalog/parse_cache.h"

namespace gpumem {
namespace {

constexpr std::string_view kSchema = "gpumem.gpu-cache/3";

// A new GpuSpec field must be written and read below too; this stops the build until it is.
static_assert(sizeof(GpuSpec) == 240, "GpuSpec changed: update gpu_catalog_cache.cc");

// Each GPU is an array of its fields in this order, not an object: reading back 67 objects'
// keys into nlohmann's maps was most of what the cache cost.
nlohmann::json to_json(const GpuSpec& g) {
  return nlohmann::json::array(
      {g.name, g.nvidia_smi_name, g.memory_total.value(),
       g.cuda_total ? nlohmann::json(g.cuda_total->value()) : nlohmann::json(),
       g.compute_capability_major, g.compute_capability_minor, g.sm_count, g.max_threads_per_sm,
       g.memory_type, interconnect_name(g.interconnect), g.interconnect_detail, g.peer_to_peer,
       g.aliases, g.file});
}

// Nothing for an unknown interconnect or an array of another length; throws
// nlohmann::json::exception on a wrong type.
std::optional<GpuSpec> from_json(const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 14) return std::nullopt;
  GpuSpec g;
  g.name = j[0].get<std::string>();
  g.nvidia_smi_name = j[1].get<std::string>();
  g.memory_total = bytes(j[2].get<std::int64_t>());
  if (!j[3].is_null()) g.cuda_total = bytes(j[3].get<std::int64_t>());
  g.compute_capability_major = j[4].get<int>();
  g.compute_capability_minor = j[5].get<int>();
  g.sm_count = j[6].get<int>();
  g.max_threads_per_sm = j[7].get<int>();
  g.memory_type = j[8].get<std::string>();
  const std::string link = j[9].get<std::string>();
  if (link == interconnect_name(Interconnect::kNvlink)) {
    g.interconnect = Interconnect::kNvlink;
  } else if (link == interconnect_name(Interconnect::kPcie)) {
    g.interconnect = Interconnect::kPcie;
  } else {
    return std::nullopt;
  }
  g.interconnect_detail = j[10].get<std::string>();
  g.peer_to_peer = j[11].get<bool>();
  g.aliases = j[12].get<std::vector<std::string>>();
  g.file = j[13].get<std::string>();
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
