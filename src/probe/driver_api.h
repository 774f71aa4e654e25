// The few CUDA driver-API calls the probe makes, reached through the runtime's driver entry
// points (cudaGetDriverEntryPointByVersion) so that the binary needs no libcuda at link
// time: the VMM allocation granularity that NCCL's cuMem allocations are rounded to, cuMem
// allocations of one granule (to see what one costs), and the module loading mode.
#ifndef GPUMEM_PROBE_DRIVER_API_H_
#define GPUMEM_PROBE_DRIVER_API_H_

#include <cstdint>
#include <string>

#include "core/status.h"
#include "core/units.h"

namespace gpumem::probe {

// Which allocation properties to ask about.
enum class VmmProperties {
  kPlain,     // pinned device memory, no exportable handle
  kNcclLike,  // as NCCL allocates: POSIX file-descriptor handle, GPUDirect RDMA flag when
              // the device supports it (nccl src/include/alloc.h ncclCuMemAlloc)
};

struct Granularity {
  Bytes minimum;
  Bytes recommended;
};

// cuMemGetAllocationGranularity, MINIMUM and RECOMMENDED, on CUDA device `ordinal`.
Result<Granularity> vmm_granularity(int ordinal, VmmProperties props);

// cuMemCreate of physical memory (no mapping) and its release.
Result<std::uint64_t> vmm_create(int ordinal, VmmProperties props, Bytes size);
Status vmm_release(std::uint64_t handle);

// cuModuleGetLoadingMode: "lazy" or "eager".
Result<std::string> module_loading_mode();

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_DRIVER_API_H_
