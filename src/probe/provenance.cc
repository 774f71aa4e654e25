#include "probe/provenance.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>
#include <unistd.h>

#include <cstdio>

#include "probe/cuda_error.h"
#include "probe/driver_api.h"

extern char** environ;

namespace gpumem::probe {
namespace {

using nlohmann::json;

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form NVML and nvidia-smi print.
std::string format_uuid(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", b[i]);
  }
  return out;
}

// Records the value of `r`, or null and the error under errors[key].
template <typename T>
json value_or_error(const Result<T>& r, const std::string& key, json& errors) {
  if (r.ok()) return json(*r);
  errors[key] = r.status().message();
  return nullptr;
}

Result<int> attribute(cudaDeviceAttr attr, int device, std::string_view name) {
  int v = 0;
  GPUMEM_RETURN_IF_ERROR(
      check_cuda(cudaDeviceGetAttribute(&v, attr, device),
                 fmt::format("cudaDeviceGetAttribute({}, device {})", name, device)));
  return v;
}

Result<int> p2p_attribute(cudaDeviceP2PAttr attr, int a, int b, std::string_view name) {
  int v = 0;
  GPUMEM_RETURN_IF_ERROR(
      check_cuda(cudaDeviceGetP2PAttribute(&v, attr, a, b),
                 fmt::format("cudaDeviceGetP2PAttribute({}, {}, {})", name, a, b)));
  return v;
}

json device_summary(int ordinal, json& errors) {
  cudaDeviceProp prop{};
  if (Status s = check_cuda(cudaGetDeviceProperties(&prop, ordinal),
                            fmt::format("cudaGetDeviceProperties({})", ordinal));
      !s.ok()) {
    errors[fmt::format("device_{}", ordinal)] = s.message();
    return {{"ordinal", ordinal}};
  }
  char bus[32] = {};
  const bool have_bus = cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) == cudaSuccess;
  if (!have_bus) (void)cudaGetLastError();
  return {{"ordinal", ordinal},
          {"name", prop.name},
          {"uuid", format_uuid(prop.uuid)},
          {"pci_bus_id", have_bus ? json(bus) : json(nullptr)},
          {"compute_capability", fmt::format("{}.{}", prop.major, prop.minor)},
          {"total_global_mem", static_cast<std::int64_t>(prop.totalGlobalMem)}};
}

}  // namespace

json nccl_cuda_environment() {
  json env = json::object();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.rfind("NCCL_", 0) != 0 && entry.rfind("CUDA_", 0) != 0) continue;
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  return env;
}

json collect_provenance(RankRuntime& rt) {
  json errors = json::object();
  json out = json::object();
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  out["hostname"] = host;
  out["pid"] = static_cast<int>(::getpid());
  out["rank"] = rt.env().rank;
  out["world_size"] = rt.env().world_size;
  out["local_rank"] = rt.env().local_rank;
  out["launcher"] = launcher_name(rt.env().launcher);
  out["built_with"] = {{"cuda_runtime", CUDART_VERSION}, {"nccl", NCCL_VERSION_CODE}};

  if (Status s = rt.device().init_context(); !s.ok()) {
    errors["context"] = s.message();
    out["errors"] = std::move(errors);
    return out;
  }
  int driver = 0;
  int runtime = 0;
  out["cuda_driver_version"] =
      cudaDriverGetVersion(&driver) == cudaSuccess ? json(driver) : json(nullptr);
  out["cuda_runtime_version"] =
      cudaRuntimeGetVersion(&runtime) == cudaSuccess ? json(runtime) : json(nullptr);
  out["nccl_version"] = value_or_error(NcclComm::runtime_version(), "nccl_version", errors);
  out["module_loading_mode"] = value_or_error(module_loading_mode(), "module_loading_mode", errors);

  const int me = rt.device().ordinal();
  json device = device_summary(me, errors);
  device["sm_count"] = value_or_error(
      attribute(cudaDevAttrMultiProcessorCount, me, "MultiProcessorCount"), "sm_count", errors);
  device["max_threads_per_sm"] = value_or_error(
      attribute(cudaDevAttrMaxThreadsPerMultiProcessor, me, "MaxThreadsPerMultiProcessor"),
      "max_threads_per_sm", errors);
  device["ecc_enabled"] =
      value_or_error(attribute(cudaDevAttrEccEnabled, me, "EccEnabled"), "ecc_enabled", errors);

  const Nvml* nvml = rt.nvml();
  json nvml_json = nullptr;
  if (nvml != nullptr && rt.nvml_device() != nullptr) {
    const Nvml::Device d = rt.nvml_device();
    nvml_json = json::object();
    nvml_json["driver_version"] =
        value_or_error(nvml->driver_version(), "nvml_driver_version", errors);
    nvml_json["name"] = value_or_error(nvml->name(d), "nvml_name", errors);
    nvml_json["uuid"] = value_or_error(nvml->uuid(d), "nvml_uuid", errors);
    nvml_json["pci_bus_id"] = value_or_error(nvml->pci_bus_id(d), "nvml_pci_bus_id", errors);
    if (auto ecc = nvml->ecc_mode(d); ecc.ok()) {
      nvml_json["ecc_current"] = ecc->first;
      nvml_json["ecc_pending"] = ecc->second;
    } else {
      errors["nvml_ecc"] = ecc.status().message();
    }
    nvml_json["active_nvlinks"] =
        value_or_error(nvml->active_nvlinks(d), "nvml_active_nvlinks", errors);
    // The NVML device was chosen without CUDA; confirm it is the GPU CUDA opened.
    nvml_json["matches_cuda_uuid"] = nvml_json["uuid"].is_string() && device.contains("uuid") &&
                                     nvml_json["uuid"] == device["uuid"];
  } else {
    errors["nvml"] = rt.nvml_note();
  }
  device["nvml"] = std::move(nvml_json);
  out["device"] = std::move(device);

  int count = 0;
  if (Status s = check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount"); !s.ok()) {
    errors["device_count"] = s.message();
  }
  out["device_count"] = count;
  json devices = json::array();
  for (int i = 0; i < count; ++i) devices.push_back(device_summary(i, errors));
  out["devices"] = devices;

  // Every pair of visible GPUs, in both of CUDA's and NVML's words.
  json pairs = json::array();
  std::vector<Nvml::Device> nvml_devices(static_cast<std::size_t>(count), nullptr);
  if (nvml != nullptr) {
    for (int i = 0; i < count; ++i) {
      if (!devices[i].contains("uuid")) continue;
      if (auto d = nvml->device_by_uuid(devices[i]["uuid"].get<std::string>()); d.ok())
        nvml_devices[i] = *d;
    }
  }
  for (int a = 0; a < count; ++a) {
    for (int b = a + 1; b < count; ++b) {
      json p = {{"a", a}, {"b", b}};
      const std::string key = fmt::format("pair_{}_{}", a, b);
      int can = 0;
      p["cuda_can_access_peer"] =
          cudaDeviceCanAccessPeer(&can, a, b) == cudaSuccess ? json(can != 0) : json(nullptr);
      p["cuda_p2p_access_supported"] =
          value_or_error(p2p_attribute(cudaDevP2PAttrAccessSupported, a, b, "AccessSupported"),
                         key + "_access", errors);
      p["cuda_p2p_performance_rank"] =
          value_or_error(p2p_attribute(cudaDevP2PAttrPerformanceRank, a, b, "PerformanceRank"),
                         key + "_rank", errors);
      p["cuda_p2p_native_atomics"] = value_or_error(
          p2p_attribute(cudaDevP2PAttrNativeAtomicSupported, a, b, "NativeAtomicSupported"),
          key + "_atomics", errors);
      json link = "unknown";
      if (nvml_devices[a] != nullptr && nvml_devices[b] != nullptr) {
        auto level = nvml->topology_common_ancestor(nvml_devices[a], nvml_devices[b]);
        p["nvml_common_ancestor"] = level.ok() ? json(topology_level_name(*level)) : json(nullptr);
        if (!level.ok()) errors[key + "_ancestor"] = level.status().message();
        auto nvlink = nvml->nvlink_p2p(nvml_devices[a], nvml_devices[b]);
        p["nvml_nvlink_p2p"] = value_or_error(nvlink, key + "_nvlink", errors);
        if (nvlink.ok()) link = *nvlink ? "nvlink" : (can != 0 ? "pcie_p2p" : "pcie_no_p2p");
      }
      p["link"] = link;
      pairs.push_back(std::move(p));
    }
  }
  out["topology"] = std::move(pairs);

  json env = nccl_cuda_environment();
  const auto said = [&](const char* name, const char* value) {
    return env.contains(name) && env[name] == value;
  };
  // NCCL_P2P_DISABLE=1 or a P2P level below the GPUs' distance makes NCCL stage through
  // host memory, as on a PCIe box without working P2P (research: cuda-memory-facts.md §3.7).
  std::string emulation;
  if (said("NCCL_P2P_DISABLE", "1")) emulation = "NCCL_P2P_DISABLE=1";
  if (env.contains("NCCL_P2P_LEVEL")) {
    emulation += (emulation.empty() ? "" : ", ") + std::string("NCCL_P2P_LEVEL=") +
                 env["NCCL_P2P_LEVEL"].get<std::string>();
  }
  out["pcie_emulation"] = emulation.empty() ? json(nullptr) : json(emulation);
  out["env"] = std::move(env);
  out["errors"] = std::move(errors);
  return out;
}

}  // namespace gpumem::probe
