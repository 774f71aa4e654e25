#include "engine/allocator_environment.h"

#include <charconv>
#include <vector>

#include "core/spelling.h"

namespace gpumem {
namespace {

// What an option of PyTorch 2.11's allocator configuration does to the GPU's memory
// (pytorch c10/cuda/CUDAAllocatorConfig.cpp CUDAAllocatorConfig::parseArgs and
// c10/core/AllocatorConfig.cpp AcceleratorAllocatorConfig::parseArgs).
enum class OptionEffect { kModelled, kNone, kNotModelled };

struct Option {
  std::string_view name;
  OptionEffect effect;
  std::string_view why;  // for kNone: what it does instead; for kNotModelled: what changes
};

constexpr Option kOptions[] = {
    {"expandable_segments", OptionEffect::kModelled, ""},
    {"max_split_size_mb", OptionEffect::kModelled, ""},
    {"max_non_split_rounding_mb", OptionEffect::kModelled, ""},
    {"release_lock_on_cudamalloc", OptionEffect::kNone, "the allocator's lock around cudaMalloc"},
    {"pinned_use_cuda_host_register", OptionEffect::kNone, "how pinned host memory is allocated"},
    {"pinned_num_register_threads", OptionEffect::kNone, "threads that pin host memory"},
    {"pinned_reserve_segment_size_mb", OptionEffect::kNone, "a pinned host-memory reserve"},
    {"pinned_use_background_threads", OptionEffect::kNone,
     "a thread that frees pinned host memory"},
    {"backend", OptionEffect::kNotModelled,
     "backend:cudaMallocAsync replaces the caching allocator by CUDA's stream-ordered pools"},
    {"garbage_collection_threshold", OptionEffect::kNotModelled,
     "it frees cached blocks once reserved memory passes the threshold"},
    {"roundup_power2_divisions", OptionEffect::kNotModelled,
     "it rounds requests up to power-of-two divisions, not to 512 B"},
    {"large_segment_size_mb", OptionEffect::kNotModelled,
     "it changes the segment size of mid-sized requests"},
    {"graph_capture_record_stream_reuse", OptionEffect::kNotModelled,
     "it lets a capture reuse blocks freed on other streams"},
    {"per_process_memory_fraction", OptionEffect::kNotModelled,
     "it caps the memory the allocator may reserve"},
};

std::string trim(std::string_view s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(' ') - b + 1));
}

// A whole number of MiB as PyTorch's parser takes it (stoull of the token).
std::optional<std::int64_t> mib_count(const std::string& text) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 0 || n > (1LL << 40)) {
    return std::nullopt;
  }
  return n;
}

// Parses one variable's value into `config`; the first problem is an error at the value.
bool parse(const EnvVar& v, AllocatorConfig& config, Diagnostics& diags) {
  std::vector<std::string> names;
  for (const Option& o : kOptions) names.emplace_back(o.name);
  size_t start = 0;
  while (start <= v.value.size()) {
    const size_t comma = v.value.find(',', start);
    const std::string item = trim(std::string_view(v.value).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? v.value.size() + 1 : comma + 1;
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    const std::string key = trim(std::string_view(item).substr(0, colon));
    const std::string value =
        colon == std::string::npos ? std::string() : trim(std::string_view(item).substr(colon + 1));
    const Option* option = nullptr;
    for (const Option& o : kOptions) option = o.name == key ? &o : option;
    if (option == nullptr) {
      diags.error(v.value_loc, v.name + ": Unrecognized CachingAllocator option: " + key +
                                   did_you_mean(key, names));
      return false;
    }
    if (option->effect == OptionEffect::kNone) continue;
    if (key == "backend" && value != "native" && value != "cudaMallocAsync") {
      // pytorch c10/cuda/CUDAAllocatorConfig.cpp parseAllocatorConfig
      diags.error(v.value_loc, v.name +
                                   ": Unknown allocator backend, options are native and "
                                   "cudaMallocAsync");
      return false;
    }
    if (option->effect == OptionEffect::kNotModelled && !(key == "backend" && value == "native")) {
      diags.error(v.value_loc,
                  v.name + " option '" + key + "' is not modelled: " + std::string(option->why));
      return false;
    }
    if (key == "expandable_segments") {
      // pytorch c10/core/AllocatorConfig.cpp parseExpandableSegments
      if (value != "True" && value != "False") {
        diags.error(v.value_loc,
                    v.name + ": Expected a single True/False argument for expandable_segments");
        return false;
      }
      config.expandable_segments = value == "True";
    } else if (key == "max_split_size_mb" || key == "max_non_split_rounding_mb") {
      const std::optional<std::int64_t> n = mib_count(value);
      if (!n) {
        diags.error(v.value_loc,
                    v.name + ": " + key + " takes a whole number of MiB, got '" + value + "'");
        return false;
      }
      if (key == "max_split_size_mb") {
        config.max_split_size = mib(*n);
      } else {
        config.max_non_split_rounding = mib(*n);
      }
    }
  }
  if (Status s = validate_config(config); !s.ok()) {
    diags.error(v.value_loc, v.name + ": " + s.message());
    return false;
  }
  return true;
}

}  // namespace

bool read_allocator_variable(const EnvVar& v, AllocatorSettings& settings, Diagnostics& diags) {
  if (v.name != "PYTORCH_CUDA_ALLOC_CONF" && v.name != "PYTORCH_ALLOC_CONF") return false;
  if (!settings.read_from.empty()) {
    if (settings.value != v.value) {
      diags.error(v.value_loc, v.name + " and " + settings.read_from +
                                   " are both set, to different values; set only one");
    }
    return true;
  }
  AllocatorConfig config;
  if (parse(v, config, diags)) settings.config = config;
  settings.read_from = v.name;
  settings.value = v.value;
  return true;
}

std::span<const std::string_view> allocator_variables() {
  static constexpr std::string_view kNames[] = {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"};
  return kNames;
}

}  // namespace gpumem
