// The settings and size constants of PyTorch's CUDA caching allocator, as gpumem emulates it.
//
// Every field defaults to PyTorch's own value. The size constants are facts about the
// library (they have not changed since PyTorch 1.x, except that newer releases let
// `large_segment_size` be configured); the optional ones are PYTORCH_CUDA_ALLOC_CONF options
// that an engine or a user may set. All sizes are exact byte counts.
//
// Invariant checked by `validate_config`: a max_split_size, when set, and the
// max_non_split_rounding are at least `large_segment_size` (PyTorch refuses smaller values).
// Rounding, pool choice, segment sizing and splitting are in size_rules.h.
#ifndef GPUMEM_ALLOC_ALLOCATOR_CONFIG_H_
#define GPUMEM_ALLOC_ALLOCATOR_CONFIG_H_

#include <limits>
#include <optional>

#include "core/status.h"
#include "core/units.h"

namespace gpumem {

struct AllocatorConfig {
  // Every request is rounded up to a multiple of this, and never below it.
  // pytorch c10/cuda/CUDACachingAllocator.cpp kMinBlockSize
  Bytes min_block_size = bytes(512);
  // The largest rounded request served from the small pool.
  // pytorch c10/cuda/CUDACachingAllocator.cpp kSmallSize
  Bytes small_size = mib(1);
  // Segment size for a small-pool miss.
  // pytorch c10/cuda/CUDACachingAllocator.cpp kSmallBuffer
  Bytes small_buffer = mib(2);
  // Large requests below this share a `large_segment_size` segment on a miss.
  // pytorch c10/cuda/CUDACachingAllocator.cpp kMinLargeAlloc
  Bytes min_large_alloc = mib(10);
  // Segment size for a miss of a request in (small_size, min_large_alloc).
  // pytorch c10/core/AllocatorConfig.h kLargeBuffer
  // (AcceleratorAllocatorConfig::large_segment_size)
  Bytes large_segment_size = mib(20);
  // Larger requests get a segment of their own size rounded up to this.
  // pytorch c10/cuda/CUDACachingAllocator.cpp kRoundLarge
  Bytes round_large = mib(2);
  // Blocks at least this large are never split; unset means unlimited.
  // pytorch c10/core/AllocatorConfig.h AcceleratorAllocatorConfig::max_split_size
  // (max_split_size_mb)
  std::optional<Bytes> max_split_size;
  // A request of at least max_split_size may take a cached block at most this much larger.
  // pytorch c10/core/AllocatorConfig.h max_non_split_rounding_size_ (max_non_split_rounding_mb)
  Bytes max_non_split_rounding = mib(20);
  // Segments that grow: one virtual address range per pool, mapped page by page (2 MiB
  // pages for the small pool, large_segment_size pages for the large one) as requests need
  // them and unmapped page by page by empty_cache, instead of one cudaMalloc per segment.
  // pytorch c10/cuda/CUDACachingAllocator.cpp Note [Expandable Segments]
  // (expandable_segments:True)
  bool expandable_segments = false;
  // The CUDA device ordinal the allocator serves ("GPU N" in the out-of-memory message).
  int device_index = 0;

  // max_split_size with "unlimited" as the largest byte count, as PyTorch stores SIZE_MAX.
  Bytes effective_max_split_size() const {
    return max_split_size.value_or(bytes(std::numeric_limits<std::int64_t>::max()));
  }
  friend bool operator==(const AllocatorConfig&, const AllocatorConfig&) = default;
};

// Ok, or kInvalidInput with PyTorch's own message for a value it would refuse.
Status validate_config(const AllocatorConfig& config);

}  // namespace gpumem

#endif  // GPUMEM_ALLOC_ALLOCATOR_CONFIG_H_
