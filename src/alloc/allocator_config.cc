#include "alloc/allocator_config.h"

#include <string>

namespace gpumem {

namespace {

// The floor PyTorch puts under both options, fixed whatever large_segment_size is.
// pytorch c10/core/AllocatorConfig.cpp AcceleratorAllocatorConfig::parseMaxSplitSize (kLargeBuffer)
constexpr Bytes kOptionFloor = mib(20);

}  // namespace

Status validate_config(const AllocatorConfig& config) {
  const Bytes granules[] = {config.min_block_size,  config.small_size,         config.small_buffer,
                            config.min_large_alloc, config.large_segment_size, config.round_large};
  for (Bytes granule : granules) {
    if (granule <= bytes(0)) {
      return invalid_input("caching allocator size constants must be positive, got " +
                           format_bytes(granule));
    }
  }
  const std::string floor_mb = std::to_string(kOptionFloor / mib(1));
  // pytorch c10/core/AllocatorConfig.cpp AcceleratorAllocatorConfig::parseMaxSplitSize
  if (config.max_split_size && *config.max_split_size < kOptionFloor) {
    return invalid_input("CachingAllocator option max_split_size_mb too small, must be >= " +
                         floor_mb);
  }
  // pytorch c10/core/AllocatorConfig.cpp AcceleratorAllocatorConfig::parseMaxNonSplitRoundingSize
  if (config.max_non_split_rounding < kOptionFloor) {
    return invalid_input(
        "CachingAllocator option max_non_split_rounding_mb too small, must be >= " + floor_mb);
  }
  return Status::ok_status();
}

}  // namespace gpumem
