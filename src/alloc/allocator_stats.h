// The counters of one caching allocator: what torch.cuda.memory_stats() reports, reduced to
// what gpumem's ledger uses, plus a breakdown by Category.
//
// `allocated` is the sum of the blocks handed out (rounded and possibly unsplit sizes, as
// torch.cuda.memory_allocated() counts them, not the requested sizes); `reserved` is the sum
// of the segments held from the device (torch.cuda.memory_reserved()). Both cover the
// default pools and every private pool. By category: a block's allocated bytes count for
// the category of the request that holds it, a segment's reserved bytes for the category
// of the request that made the allocator create it. Peaks are the highest `current` since
// construction or the last reset_peaks().
#ifndef GPUMEM_ALLOC_ALLOCATOR_STATS_H_
#define GPUMEM_ALLOC_ALLOCATOR_STATS_H_

#include <algorithm>
#include <array>
#include <cstdint>

#include "core/units.h"
#include "device/category.h"

namespace gpumem {

struct MemoryStat {
  Bytes current;
  Bytes peak;

  void increase(Bytes amount) {
    current += amount;
    peak = std::max(peak, current);
  }
  void decrease(Bytes amount) { current -= amount; }
  // pytorch c10/core/CachingDeviceAllocator.h Stat::reset_peak
  void reset_peak() { peak = current; }
  friend bool operator==(const MemoryStat&, const MemoryStat&) = default;
};

struct AllocatorStats {
  MemoryStat allocated;
  MemoryStat reserved;
  std::array<MemoryStat, kCategoryCount> allocated_by_category{};
  std::array<MemoryStat, kCategoryCount> reserved_by_category{};

  std::int64_t segments = 0;        // segments currently held from the device
  std::int64_t device_mallocs = 0;  // successful Device::malloc calls
  std::int64_t device_frees = 0;    // Device::free calls
  std::int64_t alloc_retries = 0;   // mallocs retried after releasing the whole cache
  std::int64_t ooms = 0;            // allocations that failed for good

  void reset_peaks() {
    allocated.reset_peak();
    reserved.reset_peak();
    for (MemoryStat& s : allocated_by_category) s.reset_peak();
    for (MemoryStat& s : reserved_by_category) s.reset_peak();
  }
  friend bool operator==(const AllocatorStats&, const AllocatorStats&) = default;
};

}  // namespace gpumem

#endif  // GPUMEM_ALLOC_ALLOCATOR_STATS_H_
