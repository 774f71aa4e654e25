// How PyTorch's caching allocator sizes a request: the block size it rounds to, the pool it
// is served from, the segment (cudaMalloc) size on a cache miss, whether a cached block may
// serve it, and whether the block that serves it is split.
//
// Pure functions of the request and an AllocatorConfig, inline because CachingAllocator calls
// them on every allocation. `rounded` always means the output of `round_size`. Not modelled:
// roundup_power2_divisions (off by default).
#ifndef GPUMEM_ALLOC_SIZE_RULES_H_
#define GPUMEM_ALLOC_SIZE_RULES_H_

#include <algorithm>

#include "alloc/allocator_config.h"
#include "core/units.h"

namespace gpumem {

// At least min_block_size, and a multiple of it: 1 B -> 512 B, 1000 B -> 1024 B.
// pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::round_size
inline Bytes round_size(Bytes request, const AllocatorConfig& config) {
  return std::max(config.min_block_size, round_up(request, config.min_block_size));
}

// Requests up to small_size (1 MiB) use the small pool, larger ones the large pool.
// pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::get_pool
inline bool is_small_request(Bytes rounded, const AllocatorConfig& config) {
  return rounded <= config.small_size;
}

// The segment a miss allocates: 2 MiB for the small pool, 20 MiB below 10 MiB, else the
// request rounded up to 2 MiB.
// pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::get_allocation_size
inline Bytes segment_size_for(Bytes rounded, const AllocatorConfig& config) {
  if (rounded <= config.small_size) return config.small_buffer;
  if (rounded < config.min_large_alloc) return config.large_segment_size;
  return round_up(rounded, config.round_large);
}

// Whether the smallest cached block that fits (`candidate`) may serve the request: a request
// below max_split_size never takes an oversize block, and a request of at least
// max_split_size takes one only if it wastes less than max_non_split_rounding. With the
// default unlimited max_split_size every fitting block may serve.
// pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::get_free_block
inline bool may_serve(Bytes candidate, Bytes rounded, const AllocatorConfig& config) {
  const Bytes max_split = config.effective_max_split_size();
  if (rounded < max_split) return candidate < max_split;
  return candidate < rounded + config.max_non_split_rounding;
}

// Whether a block of `block` bytes serving the request is split, leaving the rest cached:
// in the small pool, and in any pool under expandable segments, when at least
// min_block_size is left; in the large pool when more than small_size (1 MiB) is left and
// the request is below max_split_size.
// pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::should_split
inline bool should_split(Bytes block, Bytes rounded, bool small_pool,
                         const AllocatorConfig& config) {
  const Bytes remaining = block - rounded;
  if (small_pool || config.expandable_segments) return remaining >= config.min_block_size;
  return rounded < config.effective_max_split_size() && remaining > config.small_size;
}

}  // namespace gpumem

#endif  // GPUMEM_ALLOC_SIZE_RULES_H_
