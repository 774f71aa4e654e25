// What PyTorch's caching allocator says when an allocation fails for good.
//
// `OomReport` holds the numbers of the failure, taken after the allocator has already
// released every cached segment it could and retried; the ledger records them.
// `format_oom_message` writes PyTorch's torch.OutOfMemoryError text from them, with
// PyTorch's own size printer (`format_torch_size`: "512 bytes", "1.50 KiB", "20.00 MiB",
// "79.19 GiB"; two decimals, the unit chosen by the largest power of 1024 strictly below the
// size).
//
// Two optional parts of the real message are never written: the NVML per-process lines
// ("Including non-PyTorch memory, this process has ... memory in use. "), which PyTorch
// also leaves out when it cannot load NVML and which the Device seam cannot see, and the
// "... allowed; " part that only torch.cuda.set_per_process_memory_fraction produces.
#ifndef GPUMEM_ALLOC_OOM_REPORT_H_
#define GPUMEM_ALLOC_OOM_REPORT_H_

#include <string>

#include "core/units.h"

namespace gpumem {

struct OomReport {
  int device_index = 0;
  Bytes requested;     // the size the caller asked for
  Bytes segment_size;  // the device allocation that failed ("Tried to allocate")
  Bytes device_free;   // cudaMemGetInfo, after the cache was released
  Bytes device_total;
  Bytes allocated;            // memory_allocated() at the failure
  Bytes reserved;             // memory_reserved() at the failure
  Bytes private_pool_cached;  // free blocks cached in private (CUDA-graph) pools
  friend bool operator==(const OomReport&, const OomReport&) = default;
};

// pytorch c10/cuda/CUDACachingAllocator.cpp format_size
std::string format_torch_size(Bytes size);

// pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::malloc (TORCH_CHECK_WITH)
std::string format_oom_message(const OomReport& report);

}  // namespace gpumem

#endif  // GPUMEM_ALLOC_OOM_REPORT_H_
