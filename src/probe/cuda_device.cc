#include "probe/cuda_device.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <thread>

#include "probe/cuda_error.h"
#include "probe/deadline.h"
#include "probe/touch_kernel.h"

namespace gpumem::probe {
namespace {

// The first GEMM of load_library("cublas"): small enough to cost nothing itself, large
// enough that cuBLAS picks a real kernel and sets up its workspace.
constexpr int kFirstGemmN = 256;
constexpr auto kStreamPollPause = std::chrono::microseconds(100);

void* as_ptr(DevicePtr p) { return reinterpret_cast<void*>(p.address); }
DevicePtr from_ptr(void* p) { return DevicePtr{reinterpret_cast<std::uint64_t>(p)}; }

// The entry of `m` whose [start, start + size) holds `address`, or m.end().
template <typename Map, typename SizeOf>
typename Map::const_iterator containing(const Map& m, std::uint64_t address, SizeOf size_of) {
  auto it = m.upper_bound(address);
  if (it == m.begin()) return m.end();
  --it;
  const auto end = it->first + static_cast<std::uint64_t>(size_of(it->second).value());
  return address < end ? it : m.end();
}

}  // namespace

CudaDevice::CudaDevice(int ordinal, std::chrono::milliseconds timeout)
    : ordinal_(ordinal), timeout_(timeout) {}

CudaDevice::~CudaDevice() { release_all(); }

void CudaDevice::record_failure(const Status& s) {
  std::fprintf(stderr, "gpumem-probe: GPU %d: %s\n", ordinal_, s.message().c_str());
  if (health_.ok()) health_ = s;
}

Status CudaDevice::init_context() {
  if (context_ready_) return Status::ok_status();
  GPUMEM_RETURN_IF_ERROR(
      check_cuda(cudaSetDevice(ordinal_), fmt::format("cudaSetDevice({})", ordinal_)));
  GPUMEM_RETURN_IF_ERROR(check_cuda(cudaFree(nullptr), "cudaFree(0), which creates the context"));
  context_ready_ = true;
  return Status::ok_status();
}

MemInfo CudaDevice::mem_get_info() {
  std::size_t free = 0;
  std::size_t total = 0;
  Status s = init_context();
  if (s.ok()) s = check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  if (!s.ok()) {
    record_failure(s);
    return MemInfo{bytes(0), bytes(0)};
  }
  return MemInfo{bytes(static_cast<std::int64_t>(free)), bytes(static_cast<std::int64_t>(total))};
}

Result<DevicePtr> CudaDevice::malloc(Bytes size, Category category) {
  if (size.value() <= 0) {
    return invalid_input(
        fmt::format("malloc of {} for {}", format_bytes(size), category_name(category)));
  }
  GPUMEM_RETURN_IF_ERROR(init_context());
  void* p = nullptr;
  Status s =
      check_cuda(cudaMalloc(&p, static_cast<std::size_t>(size.value())),
                 fmt::format("cudaMalloc({}) for {}", format_bytes(size), category_name(category)));
  if (!s.ok()) {
    std::size_t free = 0;
    std::size_t total = 0;
    if (s.code() == StatusCode::kOutOfMemory && cudaMemGetInfo(&free, &total) == cudaSuccess) {
      return Status(s.code(), fmt::format("{}; cudaMemGetInfo: {} free of {}", s.message(),
                                          format_bytes(bytes(static_cast<std::int64_t>(free))),
                                          format_bytes(bytes(static_cast<std::int64_t>(total)))));
    }
    return s;
  }
  allocations_[reinterpret_cast<std::uint64_t>(p)] = Allocation{size, category};
  allocated_[static_cast<std::size_t>(category)] += size;
  return from_ptr(p);
}

Status CudaDevice::do_free(DevicePtr ptr) {
  const auto it = allocations_.find(ptr.address);
  if (it == allocations_.end()) {
    return invalid_input(fmt::format("free({:#x}): not an allocation of this device", ptr.address));
  }
  GPUMEM_RETURN_IF_ERROR(
      check_cuda(cudaFree(as_ptr(ptr)),
                 fmt::format("cudaFree({:#x}, {})", ptr.address, format_bytes(it->second.size))));
  allocated_[static_cast<std::size_t>(it->second.category)] -= it->second.size;
  allocations_.erase(it);
  return Status::ok_status();
}

void CudaDevice::free(DevicePtr ptr) {
  if (ptr.null()) return;
  if (capturing_) {
    deferred_frees_.push_back(ptr);
    return;
  }
  if (Status s = do_free(ptr); !s.ok()) record_failure(s);
}

Result<IpcHandle> CudaDevice::ipc_export(DevicePtr ptr) {
  const auto it = allocations_.find(ptr.address);
  if (it == allocations_.end()) {
    return invalid_input(fmt::format(
        "ipc_export({:#x}): cudaIpcGetMemHandle needs the base of a cudaMalloc allocation of "
        "this device",
        ptr.address));
  }
  cudaIpcMemHandle_t h;
  GPUMEM_RETURN_IF_ERROR(
      check_cuda(cudaIpcGetMemHandle(&h, as_ptr(ptr)),
                 fmt::format("cudaIpcGetMemHandle({})", format_bytes(it->second.size))));
  IpcHandle out;
  static_assert(sizeof h == std::tuple_size_v<decltype(out.bytes)>,
                "cudaIpcMemHandle_t is 64 bytes");
  std::memcpy(out.bytes.data(), &h, sizeof h);
  out.size = it->second.size;
  return out;
}

Result<DevicePtr> CudaDevice::ipc_open(const IpcHandle& handle) {
  GPUMEM_RETURN_IF_ERROR(init_context());
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle.bytes.data(), sizeof h);
  void* p = nullptr;
  GPUMEM_RETURN_IF_ERROR(
      check_cuda(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess),
                 fmt::format("cudaIpcOpenMemHandle(peer buffer of {}, lazy peer access)",
                             format_bytes(handle.size))));
  Mapping& m = ipc_mappings_[reinterpret_cast<std::uint64_t>(p)];
  m.size = handle.size;
  ++m.opens;
  return from_ptr(p);
}

void CudaDevice::ipc_close(DevicePtr mapped) {
  const auto it = ipc_mappings_.find(mapped.address);
  if (it == ipc_mappings_.end()) {
    record_failure(
        invalid_input(fmt::format("ipc_close({:#x}): not an open IPC mapping", mapped.address)));
    return;
  }
  if (Status s = check_cuda(cudaIpcCloseMemHandle(as_ptr(mapped)), "cudaIpcCloseMemHandle");
      !s.ok()) {
    record_failure(s);
    return;
  }
  if (--it->second.opens == 0) ipc_mappings_.erase(it);
}

Result<cudaStream_t> CudaDevice::stream() {
  if (stream_ != nullptr) return stream_;
  GPUMEM_RETURN_IF_ERROR(init_context());
  GPUMEM_RETURN_IF_ERROR(check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                                    "cudaStreamCreateWithFlags(non-blocking)"));
  return stream_;
}

Status CudaDevice::synchronize(std::string_view what) {
  auto st = stream();
  if (!st.ok()) return st.status();
  const Deadline deadline(timeout_);
  while (true) {
    const cudaError_t e = cudaStreamQuery(*st);
    if (e == cudaSuccess) return Status::ok_status();
    if (e != cudaErrorNotReady) return check_cuda(e, fmt::format("cudaStreamQuery after {}", what));
    if (deadline.expired()) {
      return Status(StatusCode::kAborted, fmt::format("{} did not finish within {} s on GPU {}",
                                                      what, deadline.timeout_s(), ordinal_));
    }
    std::this_thread::sleep_for(kStreamPollPause);
  }
}

Result<Bytes> CudaDevice::bytes_after(DevicePtr ptr) const {
  const auto a = containing(allocations_, ptr.address, [](const Allocation& x) { return x.size; });
  if (a != allocations_.end())
    return a->second.size - bytes(static_cast<std::int64_t>(ptr.address - a->first));
  const auto m = containing(ipc_mappings_, ptr.address, [](const Mapping& x) { return x.size; });
  if (m != ipc_mappings_.end())
    return m->second.size - bytes(static_cast<std::int64_t>(ptr.address - m->first));
  return invalid_input(
      fmt::format("launch_kernel: {:#x} is in no allocation or IPC mapping of "
                  "GPU {}",
                  ptr.address, ordinal_));
}

Status CudaDevice::begin_graph_capture() {
  if (capturing_) return internal_error("begin_graph_capture while a capture is active");
  auto st = stream();
  if (!st.ok()) return st.status();
  GPUMEM_RETURN_IF_ERROR(check_cuda(cudaStreamBeginCapture(*st, cudaStreamCaptureModeRelaxed),
                                    "cudaStreamBeginCapture(relaxed)"));
  capturing_ = true;
  return Status::ok_status();
}

Status CudaDevice::launch_kernel(std::span<const DevicePtr> buffers, Bytes bytes_touched) {
  if (buffers.size() > static_cast<std::size_t>(kTouchMaxBuffers)) {
    return invalid_input(
        fmt::format("launch_kernel with {} buffers; the probe's kernel takes at "
                    "most {}",
                    buffers.size(), kTouchMaxBuffers));
  }
  auto st = stream();
  if (!st.ok()) return st.status();
  TouchArgs args{};
  args.count = static_cast<int>(buffers.size());
  args.salt = 0;
  // `bytes_touched` is shared evenly; no buffer is touched past its end.
  const std::int64_t share =
      buffers.empty() ? 0 : bytes_touched.value() / static_cast<std::int64_t>(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    auto room = bytes_after(buffers[i]);
    if (!room.ok()) return room.status();
    args.ptr[i] = static_cast<unsigned char*>(as_ptr(buffers[i]));
    args.len[i] = static_cast<unsigned long long>(std::min(share, room->value()));
  }
  GPUMEM_RETURN_IF_ERROR(
      check_cuda(launch_touch_kernel(args, *st),
                 capturing_ ? "touch kernel launch (captured)" : "touch kernel launch"));
  return capturing_ ? Status::ok_status() : synchronize("the touch kernel");
}

Result<GraphId> CudaDevice::end_graph_capture() {
  if (!capturing_) return internal_error("end_graph_capture without begin_graph_capture");
  cudaGraph_t graph = nullptr;
  const Status ended = check_cuda(cudaStreamEndCapture(stream_, &graph), "cudaStreamEndCapture");
  capturing_ = false;
  Status result = ended;
  cudaGraphExec_t exec = nullptr;
  if (result.ok()) {
    result = check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    if (!result.ok()) cudaGraphDestroy(graph);
  }
  // Frees the engine asked for while the capture was running.
  for (DevicePtr p : deferred_frees_) {
    if (Status s = do_free(p); !s.ok()) record_failure(s);
  }
  deferred_frees_.clear();
  if (!result.ok()) return result;
  graphs_.push_back(Graph{graph, exec});
  return GraphId{static_cast<int>(graphs_.size()) - 1};
}

Status CudaDevice::load_library(std::string_view library) {
  if (library != "cublas") {
    return not_found(
        fmt::format("load_library: unknown library '{}' (the probe knows: cublas)", library));
  }
  if (cublas_) return Status::ok_status();
  if (capturing_) return invalid_input("load_library(cublas) during a graph capture");
  auto st = stream();
  if (!st.ok()) return st.status();
  auto lib = CublasLibrary::load();
  if (!lib.ok()) return lib.status();
  GPUMEM_RETURN_IF_ERROR((*lib)->create_handle(*st));
  const Bytes matrix = bytes(static_cast<std::int64_t>(sizeof(float)) * kFirstGemmN * kFirstGemmN);
  std::array<DevicePtr, 3> m{};
  Status s = Status::ok_status();
  for (DevicePtr& p : m) {
    auto r = malloc(matrix, Category::kWorkspace);
    if (!r.ok()) {
      s = r.status();
      break;
    }
    p = *r;
  }
  if (s.ok()) {
    s = (*lib)->sgemm(kFirstGemmN, static_cast<const float*>(as_ptr(m[0])),
                      static_cast<const float*>(as_ptr(m[1])), static_cast<float*>(as_ptr(m[2])));
  }
  if (s.ok()) s = synchronize("the first cuBLAS GEMM");
  for (DevicePtr p : m) free(p);
  if (!s.ok()) return s;
  cublas_ = std::move(*lib);
  return Status::ok_status();
}

void CudaDevice::release_graphs() {
  for (const Graph& g : graphs_) {
    if (Status s = check_cuda(cudaGraphExecDestroy(g.exec), "cudaGraphExecDestroy"); !s.ok())
      record_failure(s);
    if (Status s = check_cuda(cudaGraphDestroy(g.graph), "cudaGraphDestroy"); !s.ok())
      record_failure(s);
  }
  graphs_.clear();
}

void CudaDevice::release_all() {
  if (!context_ready_) return;
  if (capturing_) {
    cudaGraph_t abandoned = nullptr;
    if (cudaStreamEndCapture(stream_, &abandoned) == cudaSuccess && abandoned != nullptr) {
      cudaGraphDestroy(abandoned);
    }
    (void)cudaGetLastError();
    capturing_ = false;
  }
  release_graphs();
  cublas_.reset();
  while (!ipc_mappings_.empty()) {
    const auto it = ipc_mappings_.begin();
    (void)check_cuda(cudaIpcCloseMemHandle(reinterpret_cast<void*>(it->first)),
                     "cudaIpcCloseMemHandle");
    ipc_mappings_.erase(it);
  }
  deferred_frees_.clear();
  while (!allocations_.empty()) {
    if (!do_free(DevicePtr{allocations_.begin()->first}).ok())
      allocations_.erase(allocations_.begin());
  }
  if (stream_ != nullptr) {
    (void)check_cuda(cudaStreamDestroy(stream_), "cudaStreamDestroy");
    stream_ = nullptr;
  }
}

}  // namespace gpumem::probe
