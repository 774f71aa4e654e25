// NVML, loaded at run time: device memory as the driver accounts it, per process, and the
// identity and wiring of the GPUs.
//
// The probe is built without NVML's header or library and opens libnvidia-ml.so.1 (part of
// the driver) with dlopen, so the same binary runs where NVML is missing; every reading then
// reports "absent", never 0. NVML queries create no CUDA context, which is why the probe
// takes its first reading of a GPU through NVML before any CUDA call.
//
// Functions that a driver may lack (nvmlDeviceGetMemoryInfo_v2 before R510) are looked up
// one by one; a missing one makes only its reading absent.
#ifndef GPUMEM_PROBE_NVML_H_
#define GPUMEM_PROBE_NVML_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

#include "core/status.h"
#include "core/units.h"
#include "probe/rank_env.h"

namespace gpumem::probe {

// nvmlDeviceGetMemoryInfo: used = total - free, reserved memory included.
struct NvmlMemory {
  Bytes total;
  Bytes free;
  Bytes used;
};

// nvmlDeviceGetMemoryInfo_v2: reserved (driver, firmware) is reported on its own.
struct NvmlMemoryV2 {
  Bytes total;
  Bytes reserved;
  Bytes free;
  Bytes used;
};

// NVML's PCI distance between two GPUs (nvmlGpuTopologyLevel_t), as a word.
std::string_view topology_level_name(int level);

class Nvml {
 public:
  using Device = struct nvmlDevice_st*;

  // dlopen("libnvidia-ml.so.1") and nvmlInit_v2. kNotFound when the library is absent.
  static Result<std::unique_ptr<Nvml>> load();
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  Result<int> device_count() const;
  Result<Device> device_by_index(int index) const;
  Result<Device> device_by_uuid(const std::string& uuid) const;
  // The device that CUDA ordinal `ordinal` names in a process with environment `env`,
  // found without any CUDA call (see visible_device_entry).
  Result<Device> device_for_cuda_ordinal(int ordinal, const EnvLookup& env) const;

  Result<std::string> driver_version() const;
  Result<std::string> name(Device d) const;
  Result<std::string> uuid(Device d) const;
  Result<std::string> pci_bus_id(Device d) const;
  Result<NvmlMemory> memory(Device d) const;
  Result<NvmlMemoryV2> memory_v2(Device d) const;
  // Memory NVML attributes to process `pid` on the device; nullopt when the driver does not
  // list the process (for example from inside a container's PID namespace).
  Result<std::optional<Bytes>> process_used(Device d, pid_t pid) const;
  // ECC mode, current and pending.
  Result<std::pair<bool, bool>> ecc_mode(Device d) const;
  Result<int> topology_common_ancestor(Device a, Device b) const;
  // nvmlDeviceGetP2PStatus for the NVLink capability: whether a and b talk over NVLink.
  Result<bool> nvlink_p2p(Device a, Device b) const;
  // Number of NVLink links of the device in state "enabled".
  Result<int> active_nvlinks(Device d) const;

 private:
  struct Api;
  Nvml(void* handle, std::unique_ptr<Api> api);

  void* handle_;
  std::unique_ptr<Api> api_;
};

// Which physical GPU CUDA ordinal `ordinal` is, from CUDA_VISIBLE_DEVICES (unset: all
// devices, in PCI bus order, which is NVML's index order; the probe sets
// CUDA_DEVICE_ORDER=PCI_BUS_ID so that CUDA numbers them the same way). An entry is an NVML
// index or a "GPU-…" UUID prefix.
struct VisibleDevice {
  std::optional<int> nvml_index;
  std::optional<std::string> uuid_prefix;
};
Result<VisibleDevice> visible_device_entry(const std::optional<std::string>& cuda_visible_devices,
                                           int ordinal);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_NVML_H_
