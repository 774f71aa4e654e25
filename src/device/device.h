// The GPU as an engine's start-up code sees it: one of the two seams of gpumem.
//
// Engine models (src/engine) describe a start-up as calls on a `Device` and a `Comm`
// (comm.h). The simulator implements them with a model of the GPU (src/sim/sim_device.h);
// the probe implements them with real CUDA (src/probe). The engine code is the same for
// both, so what the probe measures lines up with what the simulator predicts, call by call.
//
// Every call here is a *driver-level* operation: `malloc` is cudaMalloc (the driver rounds
// it to its page size), not an allocation through PyTorch's caching allocator — that one is
// emulated on top of this interface in src/alloc, identically for both implementations.
// No CUDA header may be included by this interface or by anything implementing it outside
// src/probe.
#ifndef GPUMEM_DEVICE_DEVICE_H_
#define GPUMEM_DEVICE_DEVICE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/status.h"
#include "core/units.h"
#include "device/category.h"
#include "device/pytorch_resource.h"

namespace gpumem {

// A device address. Simulated devices hand out synthetic but non-overlapping addresses.
struct DevicePtr {
  std::uint64_t address = 0;
  bool null() const { return address == 0; }
  friend bool operator==(DevicePtr, DevicePtr) = default;
};

// The two numbers of cudaMemGetInfo: device-wide free memory and the total CUDA can use.
struct MemInfo {
  Bytes free;
  Bytes total;
};

// An exported allocation another process can map (cudaIpcMemHandle_t is 64 opaque bytes).
struct IpcHandle {
  std::array<std::byte, 64> bytes{};
  Bytes size;  // size of the exported allocation, for accounting
};

// Identifies a captured CUDA graph on one device.
struct GraphId {
  int index = -1;
};

class Device {
 public:
  virtual ~Device() = default;

  // Creates this process's CUDA context on the device, as the first CUDA call does.
  // Idempotent; every other call creates the context first when needed.
  virtual Status init_context() = 0;

  // cudaMemGetInfo.
  virtual MemInfo mem_get_info() = 0;

  // cudaMalloc / cudaFree. A failed malloc returns kOutOfMemory and changes nothing.
  virtual Result<DevicePtr> malloc(Bytes size, Category category) = 0;
  virtual void free(DevicePtr ptr) = 0;

  // cudaIpcGetMemHandle / cudaIpcOpenMemHandle / cudaIpcCloseMemHandle.
  virtual Result<IpcHandle> ipc_export(DevicePtr ptr) = 0;
  virtual Result<DevicePtr> ipc_open(const IpcHandle& handle) = 0;
  virtual void ipc_close(DevicePtr mapped) = 0;

  // Stream capture of one CUDA graph. Between begin and end, `launch_kernel` records a
  // kernel node that reads and writes `buffers` (the probe really launches it; the
  // simulator counts nodes). `end_graph_capture` instantiates the graph, which is when the
  // driver allocates the executable's own memory.
  virtual Status begin_graph_capture() = 0;
  virtual Status launch_kernel(std::span<const DevicePtr> buffers, Bytes bytes_touched) = 0;
  // `count` kernels that touch no buffer of their own, one after the other. A forward pass
  // launches tens of thousands; a device that only counts them can say so in one call.
  virtual Status launch_kernels(int count, Bytes bytes_touched) {
    for (int i = 0; i < count; ++i) GPUMEM_RETURN_IF_ERROR(launch_kernel({}, bytes_touched));
    return {};
  }
  virtual Result<GraphId> end_graph_capture() = 0;

  // Loads a library's kernels and its handle state (cuBLAS on the first GEMM), charged to
  // the context like the driver does. `library` names the calibration constant.
  virtual Status load_library(std::string_view library) = 0;

  // The engine's PyTorch process uses `resource` here, creating it if this is the first use
  // (device/pytorch_resource.h). A raw CUDA process has no PyTorch, so the default does
  // nothing: gpumem-probe's CudaDevice keeps it, and its traces measure the raw process.
  virtual Status use_pytorch_resource(PytorchResource /*resource*/) { return {}; }
};

}  // namespace gpumem

#endif  // GPUMEM_DEVICE_DEVICE_H_
