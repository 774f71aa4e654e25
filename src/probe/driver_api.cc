#include "probe/driver_api.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "probe/cuda_error.h"

namespace gpumem::probe {
namespace {

// Entry points are asked for as of CUDA 12.0: every function used here existed then with
// the signature of the PFN types below.
constexpr unsigned kEntryPointVersion = 12000;

// Fills `fn` with the driver's `symbol`. (A Status and an out-parameter rather than a
// Result<Fn>: a Result of a function-pointer type trips -Wshadow on Result::value.)
template <typename Fn>
Status entry_point(const char* symbol, Fn& fn) {
  void* found_fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  GPUMEM_RETURN_IF_ERROR(
      check_cuda(cudaGetDriverEntryPointByVersion(symbol, &found_fn, kEntryPointVersion,
                                                  cudaEnableDefault, &found),
                 fmt::format("cudaGetDriverEntryPointByVersion({})", symbol)));
  if (found != cudaDriverEntryPointSuccess || found_fn == nullptr) {
    return not_found(fmt::format("the CUDA driver has no {} (entry point query result {})", symbol,
                                 static_cast<int>(found)));
  }
  fn = reinterpret_cast<Fn>(found_fn);
  return Status::ok_status();
}

Status check_cu(CUresult r, std::string_view call) {
  if (r == CUDA_SUCCESS) return Status::ok_status();
  const char* text = "unknown driver error";
  PFN_cuGetErrorString_v6000 get = nullptr;
  if (entry_point("cuGetErrorString", get).ok()) get(r, &text);
  const StatusCode code =
      r == CUDA_ERROR_OUT_OF_MEMORY ? StatusCode::kOutOfMemory : StatusCode::kInternal;
  return Status(code, fmt::format("{}: {} (CUresult {})", call, text, static_cast<int>(r)));
}

Result<CUmemAllocationProp> properties(int ordinal, VmmProperties props) {
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  GPUMEM_RETURN_IF_ERROR(entry_point("cuDeviceGet", device_get));
  CUdevice dev = 0;
  GPUMEM_RETURN_IF_ERROR(
      check_cu(device_get(&dev, ordinal), fmt::format("cuDeviceGet({})", ordinal)));
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  if (props == VmmProperties::kNcclLike) {
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    PFN_cuDeviceGetAttribute_v2000 attr = nullptr;
    GPUMEM_RETURN_IF_ERROR(entry_point("cuDeviceGetAttribute", attr));
    int rdma = 0;
    GPUMEM_RETURN_IF_ERROR(
        check_cu(attr(&rdma, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, dev),
                 "cuDeviceGetAttribute(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED)"));
    if (rdma != 0) prop.allocFlags.gpuDirectRDMACapable = 1;
  }
  return prop;
}

}  // namespace

Result<Granularity> vmm_granularity(int ordinal, VmmProperties props) {
  auto prop = properties(ordinal, props);
  if (!prop.ok()) return prop.status();
  PFN_cuMemGetAllocationGranularity_v10020 get = nullptr;
  GPUMEM_RETURN_IF_ERROR(entry_point("cuMemGetAllocationGranularity", get));
  std::size_t minimum = 0;
  std::size_t recommended = 0;
  GPUMEM_RETURN_IF_ERROR(check_cu(get(&minimum, &*prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                                  "cuMemGetAllocationGranularity(MINIMUM)"));
  GPUMEM_RETURN_IF_ERROR(check_cu(get(&recommended, &*prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
                                  "cuMemGetAllocationGranularity(RECOMMENDED)"));
  return Granularity{bytes(static_cast<std::int64_t>(minimum)),
                     bytes(static_cast<std::int64_t>(recommended))};
}

Result<std::uint64_t> vmm_create(int ordinal, VmmProperties props, Bytes size) {
  auto prop = properties(ordinal, props);
  if (!prop.ok()) return prop.status();
  PFN_cuMemCreate_v10020 create = nullptr;
  GPUMEM_RETURN_IF_ERROR(entry_point("cuMemCreate", create));
  CUmemGenericAllocationHandle h = 0;
  GPUMEM_RETURN_IF_ERROR(check_cu(create(&h, static_cast<std::size_t>(size.value()), &*prop, 0),
                                  fmt::format("cuMemCreate({})", format_bytes(size))));
  return static_cast<std::uint64_t>(h);
}

Status vmm_release(std::uint64_t handle) {
  PFN_cuMemRelease_v10020 release = nullptr;
  GPUMEM_RETURN_IF_ERROR(entry_point("cuMemRelease", release));
  return check_cu(release(static_cast<CUmemGenericAllocationHandle>(handle)), "cuMemRelease");
}

Result<std::string> module_loading_mode() {
  PFN_cuModuleGetLoadingMode_v11070 get = nullptr;
  GPUMEM_RETURN_IF_ERROR(entry_point("cuModuleGetLoadingMode", get));
  CUmoduleLoadingMode mode = CU_MODULE_EAGER_LOADING;
  GPUMEM_RETURN_IF_ERROR(check_cu(get(&mode), "cuModuleGetLoadingMode"));
  return std::string(mode == CU_MODULE_LAZY_LOADING ? "lazy" : "eager");
}

}  // namespace gpumem::probe
