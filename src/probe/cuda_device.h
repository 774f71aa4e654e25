// `Device` on a real NVIDIA GPU: the probe's implementation of the first seam.
//
// Every call is the CUDA runtime call the interface names (cudaMalloc, cudaMemGetInfo,
// cudaIpc*, stream capture), on device ordinal LOCAL_RANK, with its return code checked and
// turned into a Status that names the call. The object also keeps what the probe needs to
// report and to clean up: a table of its own live allocations (so a trace can separate what
// the engine model allocated from what drivers and libraries took), the IPC mappings it
// opened, the graphs it instantiated and the cuBLAS handle it created.
//
// Graph capture: one dedicated non-blocking stream, captured in cudaStreamCaptureModeRelaxed.
// Relaxed is the one mode in which the capturing thread itself may make "potentially unsafe"
// calls: an engine allocates its graph pool during capture (PyTorch's caching allocator calls
// cudaMalloc then), the step runner samples cudaMemGetInfo between steps, and NCCL sets up
// buffers when the first collective is captured. Global and thread-local modes protect
// against *other* threads' unsafe calls racing a capture; a probe rank has no other thread
// issuing CUDA work besides NCCL's, which switches itself to relaxed mode around its own
// allocations (nccl src/include/alloc.h ncclCudaMallocDebug). cudaFree is still not allowed
// mid-capture (it synchronises the device), so frees asked for during a capture are deferred
// to the end of the capture. Instantiated graphs stay alive until the device is released, as
// engines keep theirs.
//
// Calls that cannot return a Status through the interface (free, ipc_close, mem_get_info)
// record their first failure in `health()`.
#ifndef GPUMEM_PROBE_CUDA_DEVICE_H_
#define GPUMEM_PROBE_CUDA_DEVICE_H_

#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "device/device.h"
#include "probe/cublas_library.h"

namespace gpumem::probe {

class CudaDevice final : public Device {
 public:
  // `ordinal`: the CUDA device (LOCAL_RANK). `timeout`: the longest wait for the stream.
  CudaDevice(int ordinal, std::chrono::milliseconds timeout);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  Status init_context() override;
  MemInfo mem_get_info() override;
  Result<DevicePtr> malloc(Bytes size, Category category) override;
  void free(DevicePtr ptr) override;
  Result<IpcHandle> ipc_export(DevicePtr ptr) override;
  Result<DevicePtr> ipc_open(const IpcHandle& handle) override;
  void ipc_close(DevicePtr mapped) override;
  Status begin_graph_capture() override;
  Status launch_kernel(std::span<const DevicePtr> buffers, Bytes bytes_touched) override;
  Result<GraphId> end_graph_capture() override;
  Status load_library(std::string_view library) override;

  int ordinal() const { return ordinal_; }
  bool context_ready() const { return context_ready_; }
  bool capturing() const { return capturing_; }
  // The stream kernels, graph captures and NCCL collectives of this rank run on; created on
  // first use (after the context, so that creating it is not part of the context's cost).
  Result<cudaStream_t> stream();
  // Waits for the stream by polling, so that a hung kernel or collective ends in an error
  // after the timeout instead of blocking forever. `what` names the wait in messages.
  Status synchronize(std::string_view what);
  // The first failure of a call that could not report it; ok when there was none.
  const Status& health() const { return health_; }
  // Bytes of this device's own live allocations in one category.
  Bytes allocated(Category c) const { return allocated_[static_cast<std::size_t>(c)]; }
  std::chrono::milliseconds timeout() const { return timeout_; }

  // Destroys the instantiated graphs. Graphs holding NCCL work must go before their
  // communicators, so NcclComm calls this before destroying communicators.
  void release_graphs();
  // Releases everything this object holds (graphs, cuBLAS, IPC mappings, allocations,
  // stream). The destructor calls it.
  void release_all();

 private:
  struct Allocation {
    Bytes size;
    Category category;
  };
  struct Graph {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
  };

  struct Mapping {
    Bytes size;
    int opens = 0;  // cudaIpcOpenMemHandle of one handle twice returns the same mapping
  };

  void record_failure(const Status& s);
  Status do_free(DevicePtr ptr);
  // Bytes from `ptr` to the end of the allocation or IPC mapping that contains it (engine
  // models hand out blocks inside larger segments, as PyTorch's allocator does).
  Result<Bytes> bytes_after(DevicePtr ptr) const;

  int ordinal_;
  std::chrono::milliseconds timeout_;
  bool context_ready_ = false;
  bool capturing_ = false;
  cudaStream_t stream_ = nullptr;
  Status health_;
  std::map<std::uint64_t, Allocation> allocations_;
  std::map<std::uint64_t, Mapping> ipc_mappings_;
  std::vector<DevicePtr> deferred_frees_;
  std::vector<Graph> graphs_;
  std::array<Bytes, kCategoryCount> allocated_{};
  std::unique_ptr<CublasLibrary> cublas_;
};

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_CUDA_DEVICE_H_
