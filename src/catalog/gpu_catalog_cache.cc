#include "catalog/gpu_catalog_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "core/atomic_file.h"

namespace gpumem {
namespace {

constexpr std::string_view kSchema = "gpumem.gpu-cache/1";

// A new GpuSpec field must be written and read below too; this stops the build until it is.
static_assert(sizeof(GpuSpec) == 240, "GpuSpec changed: update gpu_catalog_cache.cc");

class Fnv1a {
 public:
  void add(std::string_view bytes) {
    for (char c : bytes) {
      hash_ ^= static_cast<unsigned char>(c);
      hash_ *= 0x100000001b3ULL;
    }
    // The length too, so that ("ab", "c") and ("a", "bc") differ.
    const std::uint64_t n = bytes.size();
    for (int i = 0; i < 8; ++i) {
      hash_ ^= (n >> (8 * i)) & 0xff;
      hash_ *= 0x100000001b3ULL;
    }
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

std::string nonempty(const char* s) { return s == nullptr ? std::string() : std::string(s); }

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

std::string key_text(std::uint64_t key) { return fmt::format("{:016x}", key); }

}  // namespace

std::string gpu_cache_dir() {
  const std::string set = nonempty(std::getenv("GPUMEM_CACHE_DIR"));
  if (set == "off") return {};
  if (!set.empty()) return set;
  std::string xdg = nonempty(std::getenv("XDG_CACHE_HOME"));
  if (xdg.empty()) {
    const std::string home = nonempty(std::getenv("HOME"));
    if (home.empty()) return {};
    xdg = home + "/.cache";
  }
  return xdg + "/gpumem";
}

std::uint64_t gpu_catalog_key(const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& files) {
  Fnv1a h;
  h.add(kSchema);
  struct stat self {};
  if (::stat("/proc/self/exe", &self) == 0) {
    h.add(std::to_string(self.st_size));
    h.add(std::to_string(self.st_mtim.tv_sec) + "." + std::to_string(self.st_mtim.tv_nsec));
  }
  h.add(dir);
  for (const auto& [name, text] : files) {
    h.add(name);
    h.add(text);
  }
  return h.value();
}

std::string gpu_cache_file(const std::string& cache_dir, std::uint64_t key) {
  return cache_dir + "/gpu-catalog-" + key_text(key) + ".json";
}

std::optional<std::vector<GpuSpec>> read_gpu_cache(const std::string& path, std::uint64_t key) {
  // Only a regular file: a FIFO put where an entry goes would block every command.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  Result<std::string> text = read_file(path, InputKind::kCatalog);
  if (!text.ok()) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  try {
    if (!doc.is_object() || doc.at("schema") != kSchema || doc.at("key") != key_text(key)) {
      return std::nullopt;
    }
    std::vector<GpuSpec> gpus;
    for (const nlohmann::json& g : doc.at("gpus")) {
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
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return io_error(path + ": cannot write: " + ec.message());
  nlohmann::json doc;
  doc["schema"] = kSchema;
  doc["key"] = key_text(key);
  doc["gpus"] = nlohmann::json::array();
  for (const GpuSpec& g : gpus) doc["gpus"].push_back(to_json(g));
  return write_file_atomically(path, doc.dump() + "\n");
}

}  // namespace gpumem
