#include "alloc/oom_report.h"

#include <fmt/format.h>

namespace gpumem {

namespace {

// The advice PyTorch appends to every message (two spaces twice, as in the source). Older
// releases link https://pytorch.org/docs/stable/notes/cuda.html#environment-variables.
// pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::malloc (main, 2025)
constexpr const char* kOomAdvice =
    " If reserved but unallocated memory is large try setting"
    " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See"
    " documentation for Memory Management "
    " (https://docs.pytorch.org/docs/stable/notes/cuda.html"
    "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)";

}  // namespace

std::string format_torch_size(Bytes size) {
  const std::int64_t n = size.value();
  // Each unit applies up to and including 1024 of the previous one: 1024 B is
  // "1024 bytes", 1 MiB is "1024.00 KiB".
  if (n <= 1024) return fmt::format("{} bytes", n);
  if (n <= (1LL << 20)) return fmt::format("{:.2f} KiB", static_cast<double>(n) / 1024.0);
  if (n <= (1LL << 30)) return fmt::format("{:.2f} MiB", static_cast<double>(n) / 1048576.0);
  return fmt::format("{:.2f} GiB", static_cast<double>(n) / 1073741824.0);
}

std::string format_oom_message(const OomReport& r) {
  // PyTorch counts cached private-pool blocks as allocated, not as reserved-but-free.
  std::string private_pools;
  if (r.private_pool_cached > bytes(0)) {
    private_pools = fmt::format("with {} allocated in private pools (e.g., CUDA Graphs), ",
                                format_torch_size(r.private_pool_cached));
  }
  return fmt::format(
      "CUDA out of memory. Tried to allocate {}. GPU {} has a total capacity of {} of which {} "
      "is free. Of the allocated memory {} is allocated by PyTorch, {}and {} is reserved by "
      "PyTorch but unallocated.{}",
      format_torch_size(r.segment_size), r.device_index, format_torch_size(r.device_total),
      format_torch_size(r.device_free), format_torch_size(r.allocated + r.private_pool_cached),
      private_pools, format_torch_size(r.reserved - r.allocated - r.private_pool_cached),
      kOomAdvice);
}

}  // namespace gpumem
