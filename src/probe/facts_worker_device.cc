// Single-GPU measurements of `gpumem-probe facts`: context, cudaMalloc footprint, cuMem
// granularity, graph executables, cuBLAS. See facts_worker.h.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <vector>

#include "probe/cublas_library.h"
#include "probe/cuda_error.h"
#include "probe/driver_api.h"
#include "probe/facts_worker.h"
#include "probe/touch_kernel.h"

namespace gpumem::probe {
namespace {

using nlohmann::json;

// Granules created for the cuMem footprint: enough that a per-handle overhead shows.
constexpr int kVmmHandles = 16;
// Matrices of the cuBLAS measurement: n x n float32.
constexpr int kGemmN = 256;

Status launch_empty_kernel(cudaStream_t stream, std::string_view what) {
  const TouchArgs none{};
  return check_cuda(launch_touch_kernel(none, stream), what);
}

json optional_bytes_per(const std::optional<Bytes>& total, int count) {
  if (!total) return nullptr;
  return total->value() / count;
}

}  // namespace

Status measure_context(RankRuntime& rt, int index, json& data) {
  const std::string_view requested = kModuleLoadingModes.at(static_cast<std::size_t>(index));
  const char* env = std::getenv("CUDA_MODULE_LOADING");
  data["module_loading_requested"] = requested.empty() ? "inherited" : std::string(requested);
  data["CUDA_MODULE_LOADING"] = env != nullptr ? json(env) : json(nullptr);
  SampleLog log;
  // No CUDA call has been made in this process yet: NVML alone sees the GPU.
  log.add("before_cuda", rt.sampler().read());
  const int dev = rt.device().ordinal();
  Status s = check_cuda(cudaSetDevice(dev), fmt::format("cudaSetDevice({})", dev));
  // Since CUDA 12 cudaSetDevice creates the primary context itself; read NVML only here, so
  // the reading is not disturbed by a cudaMemGetInfo.
  if (s.ok()) log.add("after_set_device", rt.sampler().read());
  if (s.ok()) s = rt.device().init_context();  // cudaFree(0)
  if (s.ok()) log.add("after_context", rt.sampler().read());
  if (s.ok()) {
    auto stream = rt.device().stream();
    s = stream.ok() ? launch_empty_kernel(*stream, "first kernel launch") : stream.status();
    if (s.ok()) s = rt.device().synchronize("the first kernel");
    if (s.ok()) log.add("after_first_kernel", rt.sampler().read());
  }
  if (rt.device().context_ready()) {
    auto mode = module_loading_mode();
    data["module_loading_mode"] = mode.ok() ? json(*mode) : json(mode.status().message());
    int sms = 0;
    int threads = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev) ==
            cudaSuccess) {
      data["sm_count"] = sms;
      data["max_threads_per_sm"] = threads;
      // The research notes' predictor of context size (cuda-memory-facts.md §1.2).
      data["resident_thread_slots"] = sms * threads;
    }
  }
  data.update(log.to_json());
  return s;
}

Status measure_malloc(RankRuntime& rt, int index, json& data) {
  const SweepPoint point = malloc_sweep().at(static_cast<std::size_t>(index));
  data["size"] = point.size.value();
  data["count"] = point.count;
  GPUMEM_RETURN_IF_ERROR(rt.device().init_context());
  SampleLog log;
  const Sample before = rt.sampler().read();
  log.add("before", before);
  std::vector<DevicePtr> ptrs;
  ptrs.reserve(static_cast<std::size_t>(point.count));
  Status s = Status::ok_status();
  for (int i = 0; i < point.count && s.ok(); ++i) {
    auto p = rt.device().malloc(point.size, Category::kOther);
    if (!p.ok()) {
      s = p.status();
      break;
    }
    ptrs.push_back(*p);
    if (i == 0) log.add("after_first", rt.sampler().read());
  }
  const Sample all = rt.sampler().read();
  log.add("after_all", all);
  for (DevicePtr p : ptrs) rt.device().free(p);
  log.add("after_free", rt.sampler().read());
  data["allocated"] = static_cast<int>(ptrs.size());
  const std::optional<Bytes> taken = cuda_taken(before, all);
  data["taken"] = bytes_or_null(taken);
  // The footprint of one allocation: the free-memory drop over the count, floored; the
  // remainder says how uneven the allocations were.
  if (taken && !ptrs.empty()) {
    data["footprint_per_allocation"] = taken->value() / static_cast<std::int64_t>(ptrs.size());
    data["footprint_remainder"] = taken->value() % static_cast<std::int64_t>(ptrs.size());
  } else {
    data["footprint_per_allocation"] = nullptr;
    data["footprint_remainder"] = nullptr;
  }
  data.update(log.to_json());
  return s.ok() ? rt.device().health() : s;
}

Status measure_cumem(RankRuntime& rt, json& data) {
  GPUMEM_RETURN_IF_ERROR(rt.device().init_context());
  const int dev = rt.device().ordinal();
  Status first_error = Status::ok_status();
  json variants = json::array();
  for (VmmProperties props : {VmmProperties::kPlain, VmmProperties::kNcclLike}) {
    json v = {{"properties", props == VmmProperties::kPlain ? "plain" : "nccl_like"}};
    auto g = vmm_granularity(dev, props);
    if (!g.ok()) {
      v["error"] = g.status().message();
      if (first_error.ok()) first_error = g.status();
      variants.push_back(std::move(v));
      continue;
    }
    v["granularity_minimum"] = g->minimum.value();
    v["granularity_recommended"] = g->recommended.value();
    // What one granule of physical memory costs: kVmmHandles of them, unmapped.
    SampleLog log;
    const Sample before = rt.sampler().read();
    log.add("before", before);
    std::vector<std::uint64_t> handles;
    Status s = Status::ok_status();
    for (int i = 0; i < kVmmHandles; ++i) {
      auto h = vmm_create(dev, props, g->minimum);
      if (!h.ok()) {
        s = h.status();
        break;
      }
      handles.push_back(*h);
    }
    const Sample created = rt.sampler().read();
    log.add("after_create", created);
    for (std::uint64_t h : handles) {
      if (Status r = vmm_release(h); !r.ok() && s.ok()) s = r;
    }
    log.add("after_release", rt.sampler().read());
    v["handles"] = static_cast<int>(handles.size());
    v["footprint_per_handle"] =
        handles.empty()
            ? json(nullptr)
            : optional_bytes_per(cuda_taken(before, created), static_cast<int>(handles.size()));
    v.update(log.to_json());
    if (!s.ok()) {
      v["error"] = s.message();
      if (first_error.ok()) first_error = s;
    }
    variants.push_back(std::move(v));
  }
  data["variants"] = std::move(variants);
  return first_error;
}

Status measure_graph_nodes(RankRuntime& rt, json& data) {
  auto stream = rt.device().stream();
  if (!stream.ok()) return stream.status();
  // Two kernels: one without parameters, and the touch kernel the Device seam launches, whose
  // 1 KiB of parameters each node stores. Each is launched once first, so that lazy loading
  // brings its module in now, not inside the first graph's numbers.
  struct Variant {
    const char* name;
    std::size_t param_bytes;
    std::function<cudaError_t(cudaStream_t)> launch;
  };
  const TouchArgs none{};
  const std::vector<Variant> variants = {
      {"null_kernel", 0, [](cudaStream_t st) { return launch_null_kernel(st); }},
      {"touch_kernel", sizeof(TouchArgs),
       [&none](cudaStream_t st) { return launch_touch_kernel(none, st); }}};
  for (const Variant& v : variants) {
    GPUMEM_RETURN_IF_ERROR(
        check_cuda(v.launch(*stream), fmt::format("warm-up launch of {}", v.name)));
  }
  GPUMEM_RETURN_IF_ERROR(rt.device().synchronize("the warm-up kernels"));
  struct Kept {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
  };
  std::vector<Kept> kept;  // alive to the end, as an engine keeps its graphs
  Status s = Status::ok_status();
  json graphs = json::array();
  for (const Variant& v : variants) {
    for (int nodes : kGraphNodeCounts) {
      json g = {{"kernel", v.name}, {"kernel_param_bytes", v.param_bytes}, {"nodes", nodes}};
      SampleLog log;
      const Sample before = rt.sampler().read();
      log.add("before", before);
      Kept k;
      s = check_cuda(cudaStreamBeginCapture(*stream, cudaStreamCaptureModeRelaxed),
                     "cudaStreamBeginCapture");
      for (int i = 0; i < nodes && s.ok(); ++i) {
        s = check_cuda(v.launch(*stream), fmt::format("captured launch of {}", v.name));
      }
      const Status ended =
          check_cuda(cudaStreamEndCapture(*stream, &k.graph), "cudaStreamEndCapture");
      if (s.ok()) s = ended;
      if (s.ok()) log.add("after_capture", rt.sampler().read());
      Sample instantiated;
      if (s.ok()) s = check_cuda(cudaGraphInstantiate(&k.exec, k.graph, 0), "cudaGraphInstantiate");
      if (s.ok()) {
        instantiated = rt.sampler().read();
        log.add("after_instantiate", instantiated);
        s = check_cuda(cudaGraphUpload(k.exec, *stream), "cudaGraphUpload");
      }
      if (s.ok()) s = rt.device().synchronize("cudaGraphUpload");
      if (s.ok()) log.add("after_upload", rt.sampler().read());
      if (s.ok()) s = check_cuda(cudaGraphLaunch(k.exec, *stream), "cudaGraphLaunch");
      if (s.ok()) s = rt.device().synchronize(fmt::format("a graph of {} kernel nodes", nodes));
      if (s.ok()) log.add("after_launch", rt.sampler().read());
      kept.push_back(k);
      if (s.ok()) {
        // Bytes per node at instantiation, as a fraction: small graphs are below a page.
        const std::optional<Bytes> taken = cuda_taken(before, instantiated);
        g["instantiate_taken"] = bytes_or_null(taken);
        g["instantiate_bytes_per_node"] =
            taken ? json(static_cast<double>(taken->value()) / nodes) : json(nullptr);
      }
      g.update(log.to_json());
      graphs.push_back(std::move(g));
      if (!s.ok()) break;
    }
    if (!s.ok()) break;
  }
  for (const Kept& k : kept) {
    if (k.exec != nullptr) cudaGraphExecDestroy(k.exec);
    if (k.graph != nullptr) cudaGraphDestroy(k.graph);
  }
  data["graphs"] = std::move(graphs);
  return s;
}

Status measure_cublas(RankRuntime& rt, json& data) {
  auto stream = rt.device().stream();
  if (!stream.ok()) return stream.status();
  // The matrices exist before the first sample: only cuBLAS's own memory is measured.
  const Bytes matrix = bytes(static_cast<std::int64_t>(sizeof(float)) * kGemmN * kGemmN);
  std::vector<DevicePtr> m;
  for (int i = 0; i < 3; ++i) {
    auto p = rt.device().malloc(matrix, Category::kWorkspace);
    if (!p.ok()) return p.status();
    m.push_back(*p);
  }
  data["gemm"] = fmt::format("sgemm {0}x{0}x{0}", kGemmN);
  SampleLog log;
  log.add("before", rt.sampler().read());
  auto lib = CublasLibrary::load();
  if (!lib.ok()) {
    // Not a failure of the probe: the machine has no cuBLAS. Said, not hidden.
    data["available"] = false;
    data["reason"] = lib.status().message();
    data.update(log.to_json());
    return Status::ok_status();
  }
  data["available"] = true;
  data["library"] = (*lib)->soname();
  log.add("after_dlopen", rt.sampler().read());
  Status s = (*lib)->create_handle(*stream);
  if (s.ok()) log.add("after_create", rt.sampler().read());
  const auto gemm = [&](std::string_view name) {
    if (!s.ok()) return;
    s = (*lib)->sgemm(kGemmN, reinterpret_cast<const float*>(m[0].address),
                      reinterpret_cast<const float*>(m[1].address),
                      reinterpret_cast<float*>(m[2].address));
    if (s.ok()) s = rt.device().synchronize(name);
    if (s.ok()) log.add(std::string(name), rt.sampler().read());
  };
  gemm("after_first_gemm");
  gemm("after_second_gemm");
  if (s.ok()) {
    auto v = (*lib)->version();
    data["cublas_version"] = v.ok() ? json(*v) : json(nullptr);
  }
  data.update(log.to_json());
  return s;
}

}  // namespace gpumem::probe
