#include "probe/nvml.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <vector>

namespace gpumem::probe {
namespace {

// The few NVML types the probe uses, declared here with NVML's ABI (NVML API reference,
// docs.nvidia.com/deploy/nvml-api, nvml.h of driver R535 and later): return codes and enums
// are C enums (int), the structs below have exactly these members in this order.
using nvmlReturn_t = int;
constexpr nvmlReturn_t kNvmlSuccess = 0;           // NVML_SUCCESS
constexpr nvmlReturn_t kNvmlInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr int kNvmlP2PCapsIndexNvlink = 2;         // NVML_P2P_CAPS_INDEX_NVLINK
constexpr int kNvmlP2PStatusOk = 0;                // NVML_P2P_STATUS_OK
constexpr int kNvmlFeatureEnabled = 1;             // NVML_FEATURE_ENABLED
constexpr unsigned kNvmlNvlinkMaxLinks = 18;       // NVML_NVLINK_MAX_LINKS
constexpr unsigned kNvmlBufferSize = 96;           // >= NVML_DEVICE_NAME_V2_BUFFER_SIZE, _UUID_V2_
constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE

struct nvmlMemory_t {  // nvmlMemory_st
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct nvmlMemory_v2_t {  // nvmlMemory_v2_st
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
// nvmlMemory_v2 = NVML_STRUCT_VERSION(Memory, 2): the struct's size with the version in the
// top byte.
constexpr unsigned int kNvmlMemoryV2Version =
    static_cast<unsigned int>(sizeof(nvmlMemory_v2_t)) | (2u << 24);

struct nvmlProcessInfo_t {  // nvmlProcessInfo_v2_st, filled by _v3 of the process queries
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

struct nvmlPciInfo_t {  // nvmlPciInfo_st
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

static_assert(sizeof(nvmlMemory_v2_t) == 40 && sizeof(nvmlProcessInfo_t) == 24 &&
              sizeof(nvmlPciInfo_t) == 68);

template <typename F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(::dlsym(handle, name));
}

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)();
  nvmlReturn_t (*shutdown)();
  const char* (*error_string)(nvmlReturn_t);
  nvmlReturn_t (*driver_version)(char*, unsigned);
  nvmlReturn_t (*count)(unsigned*);
  nvmlReturn_t (*by_index)(unsigned, Device*);
  nvmlReturn_t (*by_uuid)(const char*, Device*);
  nvmlReturn_t (*name)(Device, char*, unsigned);
  nvmlReturn_t (*uuid)(Device, char*, unsigned);
  nvmlReturn_t (*pci_info)(Device, nvmlPciInfo_t*);
  nvmlReturn_t (*memory)(Device, nvmlMemory_t*);
  nvmlReturn_t (*memory_v2)(Device, nvmlMemory_v2_t*);
  nvmlReturn_t (*processes)(Device, unsigned*, nvmlProcessInfo_t*);
  nvmlReturn_t (*ecc)(Device, int*, int*);
  nvmlReturn_t (*ancestor)(Device, Device, int*);
  nvmlReturn_t (*p2p)(Device, Device, int, int*);
  nvmlReturn_t (*nvlink_state)(Device, unsigned, int*);

  Status check(nvmlReturn_t r, std::string_view call) const {
    if (r == kNvmlSuccess) return Status::ok_status();
    const char* text = error_string != nullptr ? error_string(r) : "unknown error";
    const StatusCode code =
        r == 3 /* NVML_ERROR_NOT_SUPPORTED */ ? StatusCode::kNotFound : StatusCode::kInternal;
    return Status(code, fmt::format("{}: {} (NVML error {})", call, text, r));
  }
};

std::string_view topology_level_name(int level) {
  // nvmlGpuTopologyLevel_t (NVML API reference).
  switch (level) {
    case 0:
      return "internal";
    case 10:
      return "single_pcie_switch";
    case 20:
      return "multiple_pcie_switches";
    case 30:
      return "host_bridge";
    case 40:
      return "numa_node";
    case 50:
      return "system";
  }
  return "unknown";
}

Result<std::unique_ptr<Nvml>> Nvml::load() {
  void* handle = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = ::dlerror();
    return not_found(fmt::format("NVML is not available: dlopen(libnvidia-ml.so.1): {}",
                                 err != nullptr ? err : "unknown error"));
  }
  auto api = std::make_unique<Api>();
  api->init = symbol<decltype(api->init)>(handle, "nvmlInit_v2");
  api->shutdown = symbol<decltype(api->shutdown)>(handle, "nvmlShutdown");
  api->error_string = symbol<decltype(api->error_string)>(handle, "nvmlErrorString");
  api->driver_version = symbol<decltype(api->driver_version)>(handle, "nvmlSystemGetDriverVersion");
  api->count = symbol<decltype(api->count)>(handle, "nvmlDeviceGetCount_v2");
  api->by_index = symbol<decltype(api->by_index)>(handle, "nvmlDeviceGetHandleByIndex_v2");
  api->by_uuid = symbol<decltype(api->by_uuid)>(handle, "nvmlDeviceGetHandleByUUID");
  api->name = symbol<decltype(api->name)>(handle, "nvmlDeviceGetName");
  api->uuid = symbol<decltype(api->uuid)>(handle, "nvmlDeviceGetUUID");
  api->pci_info = symbol<decltype(api->pci_info)>(handle, "nvmlDeviceGetPciInfo_v3");
  api->memory = symbol<decltype(api->memory)>(handle, "nvmlDeviceGetMemoryInfo");
  api->memory_v2 = symbol<decltype(api->memory_v2)>(handle, "nvmlDeviceGetMemoryInfo_v2");
  api->processes =
      symbol<decltype(api->processes)>(handle, "nvmlDeviceGetComputeRunningProcesses_v3");
  api->ecc = symbol<decltype(api->ecc)>(handle, "nvmlDeviceGetEccMode");
  api->ancestor = symbol<decltype(api->ancestor)>(handle, "nvmlDeviceGetTopologyCommonAncestor");
  api->p2p = symbol<decltype(api->p2p)>(handle, "nvmlDeviceGetP2PStatus");
  api->nvlink_state = symbol<decltype(api->nvlink_state)>(handle, "nvmlDeviceGetNvLinkState");
  if (api->init == nullptr || api->shutdown == nullptr || api->count == nullptr ||
      api->by_index == nullptr || api->memory == nullptr) {
    ::dlclose(handle);
    return not_found(
        "NVML is not usable: libnvidia-ml.so.1 lacks nvmlInit_v2 or another core "
        "function");
  }
  if (Status s = api->check(api->init(), "nvmlInit_v2"); !s.ok()) {
    ::dlclose(handle);
    return Status(StatusCode::kNotFound, "NVML is not usable: " + s.message());
  }
  return std::unique_ptr<Nvml>(new Nvml(handle, std::move(api)));
}

Nvml::Nvml(void* handle, std::unique_ptr<Api> api) : handle_(handle), api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  ::dlclose(handle_);
}

namespace {
Status missing(std::string_view fn) {
  return not_found(fmt::format("{} is not in this driver's NVML", fn));
}
}  // namespace

Result<int> Nvml::device_count() const {
  unsigned n = 0;
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->count(&n), "nvmlDeviceGetCount_v2"));
  return static_cast<int>(n);
}

Result<Nvml::Device> Nvml::device_by_index(int index) const {
  Device d = nullptr;
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->by_index(static_cast<unsigned>(index), &d),
                                     fmt::format("nvmlDeviceGetHandleByIndex_v2({})", index)));
  return d;
}

Result<Nvml::Device> Nvml::device_by_uuid(const std::string& uuid) const {
  if (api_->by_uuid == nullptr) return missing("nvmlDeviceGetHandleByUUID");
  Device d = nullptr;
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->by_uuid(uuid.c_str(), &d),
                                     fmt::format("nvmlDeviceGetHandleByUUID({})", uuid)));
  return d;
}

Result<Nvml::Device> Nvml::device_for_cuda_ordinal(int ordinal, const EnvLookup& env) const {
  auto entry = visible_device_entry(env("CUDA_VISIBLE_DEVICES"), ordinal);
  if (!entry.ok()) return entry.status();
  if (entry->nvml_index) return device_by_index(*entry->nvml_index);
  // A UUID prefix, as CUDA accepts it: the unique device whose UUID starts with it.
  auto n = device_count();
  if (!n.ok()) return n.status();
  std::optional<Device> found;
  for (int i = 0; i < *n; ++i) {
    auto d = device_by_index(i);
    if (!d.ok()) continue;
    auto u = uuid(*d);
    if (u.ok() && u->rfind(*entry->uuid_prefix, 0) == 0) {
      if (found)
        return invalid_input(
            fmt::format("CUDA_VISIBLE_DEVICES entry '{}' is ambiguous", *entry->uuid_prefix));
      found = *d;
    }
  }
  if (!found) {
    return not_found(fmt::format("no GPU has a UUID starting with '{}' (CUDA_VISIBLE_DEVICES)",
                                 *entry->uuid_prefix));
  }
  return *found;
}

Result<std::string> Nvml::driver_version() const {
  if (api_->driver_version == nullptr) return missing("nvmlSystemGetDriverVersion");
  char buf[kNvmlBufferSize] = {};
  GPUMEM_RETURN_IF_ERROR(
      api_->check(api_->driver_version(buf, sizeof buf), "nvmlSystemGetDriverVersion"));
  return std::string(buf);
}

Result<std::string> Nvml::name(Device d) const {
  if (api_->name == nullptr) return missing("nvmlDeviceGetName");
  char buf[kNvmlBufferSize] = {};
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->name(d, buf, sizeof buf), "nvmlDeviceGetName"));
  return std::string(buf);
}

Result<std::string> Nvml::uuid(Device d) const {
  if (api_->uuid == nullptr) return missing("nvmlDeviceGetUUID");
  char buf[kNvmlBufferSize] = {};
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->uuid(d, buf, sizeof buf), "nvmlDeviceGetUUID"));
  return std::string(buf);
}

Result<std::string> Nvml::pci_bus_id(Device d) const {
  if (api_->pci_info == nullptr) return missing("nvmlDeviceGetPciInfo_v3");
  nvmlPciInfo_t info{};
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->pci_info(d, &info), "nvmlDeviceGetPciInfo_v3"));
  return std::string(info.busId, strnlen(info.busId, sizeof info.busId));
}

Result<NvmlMemory> Nvml::memory(Device d) const {
  nvmlMemory_t m{};
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->memory(d, &m), "nvmlDeviceGetMemoryInfo"));
  return NvmlMemory{bytes(static_cast<std::int64_t>(m.total)),
                    bytes(static_cast<std::int64_t>(m.free)),
                    bytes(static_cast<std::int64_t>(m.used))};
}

Result<NvmlMemoryV2> Nvml::memory_v2(Device d) const {
  if (api_->memory_v2 == nullptr) return missing("nvmlDeviceGetMemoryInfo_v2");
  nvmlMemory_v2_t m{};
  m.version = kNvmlMemoryV2Version;
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->memory_v2(d, &m), "nvmlDeviceGetMemoryInfo_v2"));
  return NvmlMemoryV2{
      bytes(static_cast<std::int64_t>(m.total)), bytes(static_cast<std::int64_t>(m.reserved)),
      bytes(static_cast<std::int64_t>(m.free)), bytes(static_cast<std::int64_t>(m.used))};
}

Result<std::optional<Bytes>> Nvml::process_used(Device d, pid_t pid) const {
  if (api_->processes == nullptr) return missing("nvmlDeviceGetComputeRunningProcesses_v3");
  std::vector<nvmlProcessInfo_t> infos;
  // The list can grow between the sizing call and the reading call: retry a few times.
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned n = static_cast<unsigned>(infos.size());
    const nvmlReturn_t r = api_->processes(d, &n, infos.empty() ? nullptr : infos.data());
    if (r == kNvmlInsufficientSize) {
      infos.resize(n + 8);
      continue;
    }
    GPUMEM_RETURN_IF_ERROR(api_->check(r, "nvmlDeviceGetComputeRunningProcesses_v3"));
    for (unsigned i = 0; i < n && i < infos.size(); ++i) {
      if (infos[i].pid != static_cast<unsigned>(pid)) continue;
      if (infos[i].usedGpuMemory == kNvmlValueNotAvailable) return std::optional<Bytes>();
      return std::optional<Bytes>(bytes(static_cast<std::int64_t>(infos[i].usedGpuMemory)));
    }
    return std::optional<Bytes>();
  }
  return internal_error("nvmlDeviceGetComputeRunningProcesses_v3: the process list kept growing");
}

Result<std::pair<bool, bool>> Nvml::ecc_mode(Device d) const {
  if (api_->ecc == nullptr) return missing("nvmlDeviceGetEccMode");
  int current = 0;
  int pending = 0;
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->ecc(d, &current, &pending), "nvmlDeviceGetEccMode"));
  return std::pair<bool, bool>(current == kNvmlFeatureEnabled, pending == kNvmlFeatureEnabled);
}

Result<int> Nvml::topology_common_ancestor(Device a, Device b) const {
  if (api_->ancestor == nullptr) return missing("nvmlDeviceGetTopologyCommonAncestor");
  int level = 0;
  GPUMEM_RETURN_IF_ERROR(
      api_->check(api_->ancestor(a, b, &level), "nvmlDeviceGetTopologyCommonAncestor"));
  return level;
}

Result<bool> Nvml::nvlink_p2p(Device a, Device b) const {
  if (api_->p2p == nullptr) return missing("nvmlDeviceGetP2PStatus");
  int status = -1;
  GPUMEM_RETURN_IF_ERROR(api_->check(api_->p2p(a, b, kNvmlP2PCapsIndexNvlink, &status),
                                     "nvmlDeviceGetP2PStatus(NVLINK)"));
  return status == kNvmlP2PStatusOk;
}

Result<int> Nvml::active_nvlinks(Device d) const {
  if (api_->nvlink_state == nullptr) return missing("nvmlDeviceGetNvLinkState");
  int active = 0;
  for (unsigned link = 0; link < kNvmlNvlinkMaxLinks; ++link) {
    int state = 0;
    // Links past the device's last one, or a GPU without NVLink, answer with an error:
    // those links are simply not active.
    if (api_->nvlink_state(d, link, &state) == kNvmlSuccess && state == kNvmlFeatureEnabled) {
      ++active;
    }
  }
  return active;
}

Result<VisibleDevice> visible_device_entry(const std::optional<std::string>& cuda_visible_devices,
                                           int ordinal) {
  if (ordinal < 0) return invalid_input(fmt::format("device ordinal {} is negative", ordinal));
  if (!cuda_visible_devices) return VisibleDevice{ordinal, std::nullopt};
  std::vector<std::string> entries;
  std::string_view rest = *cuda_visible_devices;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    entries.emplace_back(item);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (ordinal >= static_cast<int>(entries.size())) {
    return invalid_input(
        fmt::format("CUDA device {} does not exist: CUDA_VISIBLE_DEVICES='{}' "
                    "lists {} device(s)",
                    ordinal, *cuda_visible_devices, entries.size()));
  }
  const std::string& e = entries[ordinal];
  if (e.rfind("GPU-", 0) == 0) return VisibleDevice{std::nullopt, e};
  if (e.rfind("MIG-", 0) == 0) {
    return invalid_input(
        fmt::format("CUDA_VISIBLE_DEVICES entry '{}' is a MIG instance; the "
                    "probe measures whole GPUs",
                    e));
  }
  int index = 0;
  const auto [ptr, ec] = std::from_chars(e.data(), e.data() + e.size(), index);
  if (ec != std::errc() || ptr != e.data() + e.size() || e.empty() || index < 0) {
    return invalid_input(
        fmt::format("CUDA_VISIBLE_DEVICES entry '{}' is neither an index nor a GPU UUID", e));
  }
  return VisibleDevice{index, std::nullopt};
}

}  // namespace gpumem::probe
