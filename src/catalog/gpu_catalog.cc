#include "catalog/gpu_catalog.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>

#include "catalog/gpu_catalog_cache.h"
#include "catalog/parse_cache.h"
#include "catalog/yaml_reader.h"
#include "core/directory.h"

namespace gpumem {

std::string_view interconnect_name(Interconnect i) {
  return i == Interconnect::kNvlink ? "nvlink" : "pcie";
}

namespace {

// "9.0" -> {9, 0}; anything else is an error.
bool parse_compute_capability(const std::string& text, GpuSpec& gpu) {
  const size_t dot = text.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= text.size()) return false;
  try {
    size_t used = 0;
    gpu.compute_capability_major = std::stoi(text.substr(0, dot), &used);
    if (used != dot) return false;
    gpu.compute_capability_minor = std::stoi(text.substr(dot + 1), &used);
    return used == text.size() - dot - 1;
  } catch (const std::exception&) {
    return false;
  }
}

// The GPU entry of a parsed document; `doc` failed to parse when it holds an error.
std::optional<GpuSpec> read_gpu_entry(const Result<YamlDocument>& doc, Diagnostics& diags) {
  if (!doc.ok()) {
    diags.error({}, doc.status().message());
    return std::nullopt;
  }
  const std::string& path = doc->file;
  const size_t errors_before = diags.count();
  MapReader r(path, doc->root, "the GPU entry", diags);
  GpuSpec gpu;
  gpu.file = path;
  gpu.name = r.string("name", true).value_or("");
  gpu.nvidia_smi_name = r.string("nvidia_smi_name", true).value_or("");
  gpu.memory_total = r.size("memory_total", true).value_or(bytes(0));
  gpu.cuda_total = r.size("cuda_total");
  if (std::optional<std::string> cc = r.string("compute_capability", true)) {
    if (!parse_compute_capability(*cc, gpu)) {
      r.error(r.child("compute_capability"),
              "'compute_capability' must look like \"9.0\", got '" + *cc + "'");
    }
  }
  // Counts of hardware units: a GPU has at least one of each, and they fit an int.
  auto unit_count = [&r](std::string_view key) {
    const std::optional<std::int64_t> n = r.integer(key, true);
    if (n && (*n < 1 || *n > std::numeric_limits<int>::max())) {
      r.error(r.child(key),
              "'" + std::string(key) + "' must be a positive count, got " + std::to_string(*n));
      return 0;
    }
    return static_cast<int>(n.value_or(0));
  };
  gpu.sm_count = unit_count("sm_count");
  gpu.max_threads_per_sm = unit_count("max_threads_per_sm");
  gpu.memory_type = r.string("memory_type").value_or("");
  if (std::optional<std::string> link = r.string("interconnect", true)) {
    if (*link == "nvlink") {
      gpu.interconnect = Interconnect::kNvlink;
    } else if (*link == "pcie") {
      gpu.interconnect = Interconnect::kPcie;
    } else {
      r.error(r.child("interconnect"),
              "'interconnect' must be nvlink or pcie, got '" + *link + "'");
    }
  }
  gpu.interconnect_detail = r.string("interconnect_detail").value_or("");
  gpu.peer_to_peer = r.boolean("peer_to_peer").value_or(true);
  if (YAML::Node aliases = r.child("aliases"); aliases.IsDefined()) {
    if (!aliases.IsSequence()) {
      r.error(aliases, "'aliases' must be a list of names");
    } else {
      for (const YAML::Node& a : aliases) {
        if (auto s = scalar_string(path, a, "an alias", diags)) gpu.aliases.push_back(*s);
      }
    }
  }
  // Free-form provenance: kept in the file for readers, not used by the simulator.
  r.child("source");
  r.child("ecc");
  r.child("unconfirmed");
  r.finish();
  if (gpu.cuda_total && *gpu.cuda_total > gpu.memory_total) {
    r.error(r.child("cuda_total"), "'cuda_total' is larger than 'memory_total'");
  }
  if (diags.count() != errors_before) return std::nullopt;
  return gpu;
}

}  // namespace

std::optional<GpuSpec> load_gpu_file(const std::string& path, Diagnostics& diags) {
  return read_gpu_entry(load_yaml_file(path, InputKind::kCatalog), diags);
}

std::optional<GpuSpec> parse_gpu_entry(const std::string& file, const std::string& text,
                                       Diagnostics& diags) {
  return read_gpu_entry(parse_yaml(file, text), diags);
}

Result<GpuCatalog> GpuCatalog::load(const std::string& dir, Diagnostics& diags) {
  Result<std::vector<std::filesystem::path>> entries = list_directory(dir);
  if (!entries.ok()) {
    return not_found("cannot read the GPU catalog: " + entries.status().message());
  }
  std::vector<std::string> files;
  for (const std::filesystem::path& p : *entries) {
    if (p.extension() == ".yaml") files.push_back(p.string());
  }
  GpuCatalog catalog;
  // Every file's text first: the cache key is made of them (catalog/gpu_catalog_cache.h).
  std::vector<std::pair<std::string, std::string>> texts;
  for (const std::string& f : files) {
    Result<std::string> text = read_file(f, InputKind::kCatalog);
    if (!text.ok()) {
      texts.clear();
      break;
    }
    texts.emplace_back(f, std::move(*text));
  }
  const std::string cache_dir = texts.size() == files.size() ? parse_cache_dir() : "";
  const std::uint64_t key = cache_dir.empty() ? 0 : gpu_catalog_key(dir, texts);
  if (!cache_dir.empty()) {
    if (std::optional<std::vector<GpuSpec>> cached =
            read_gpu_cache(gpu_cache_file(cache_dir, key), key)) {
      catalog.gpus_ = std::move(*cached);
      return catalog;
    }
  }
  const size_t diagnostics_before = diags.count();
  for (size_t i = 0; i < files.size(); ++i) {
    std::optional<GpuSpec> gpu = i < texts.size()
                                     ? parse_gpu_entry(files[i], texts[i].second, diags)
                                     : load_gpu_file(files[i], diags);
    if (gpu) catalog.gpus_.push_back(std::move(*gpu));
  }
  // A cache that cannot be written only costs the next run the parse.
  if (!cache_dir.empty() && diags.count() == diagnostics_before) {
    (void)write_gpu_cache(gpu_cache_file(cache_dir, key), key, catalog.gpus_);
  }
  return catalog;
}

const GpuSpec* GpuCatalog::find(std::string_view name) const {
  for (const GpuSpec& g : gpus_) {
    if (g.name == name) return &g;
    for (const std::string& a : g.aliases) {
      if (a == name) return &g;
    }
  }
  return nullptr;
}

std::string normalized_gpu_name(std::string_view s) {
  std::string out;
  for (char c : s) {
    out += c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const GpuSpec* GpuCatalog::find_by_any_name(std::string_view name) const {
  if (const GpuSpec* g = find(name)) return g;
  const std::string want = normalized_gpu_name(name);
  for (const GpuSpec& g : gpus_) {
    if (normalized_gpu_name(g.nvidia_smi_name) == want || normalized_gpu_name(g.name) == want) {
      return &g;
    }
    for (const std::string& a : g.aliases) {
      if (normalized_gpu_name(a) == want) return &g;
    }
  }
  return nullptr;
}

GpuCatalog GpuCatalog::with(GpuSpec gpu) const {
  GpuCatalog out = *this;
  auto same = std::find_if(out.gpus_.begin(), out.gpus_.end(),
                           [&](const GpuSpec& g) { return g.name == gpu.name; });
  if (same != out.gpus_.end()) {
    *same = std::move(gpu);
  } else {
    out.gpus_.push_back(std::move(gpu));
  }
  return out;
}

std::vector<std::string> GpuCatalog::names() const {
  std::vector<std::string> out;
  for (const GpuSpec& g : gpus_) {
    out.push_back(g.name);
    out.insert(out.end(), g.aliases.begin(), g.aliases.end());
  }
  return out;
}

}  // namespace gpumem
