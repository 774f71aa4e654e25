// Watches what a program asks of its caching allocator: every request, free, cache release,
// private-pool routing and peak reset, in order, after the allocator has served it.
//
// The torch probe needs the requests themselves, not the device allocations the emulation
// turns them into: it replays them through PyTorch's real allocator (gpumem export-ops,
// src/opstrace), so that the real allocator does its own rounding, pooling and caching. An
// observer sees only calls that changed something: a zero-byte request, which PyTorch
// answers with a null pointer, and the free of that null block are not reported.
#ifndef GPUMEM_ALLOC_ALLOCATOR_OBSERVER_H_
#define GPUMEM_ALLOC_ALLOCATOR_OBSERVER_H_

#include "core/status.h"
#include "core/units.h"
#include "device/category.h"
#include "device/device.h"

namespace gpumem {

struct BlockHandle;
struct PoolId;

class AllocatorObserver {
 public:
  virtual ~AllocatorObserver() = default;

  // `size` bytes were asked for and `block` (at `address`) serves them.
  virtual void allocated(Bytes size, Category category, BlockHandle block, DevicePtr address) = 0;
  // `size` bytes were asked for and the allocator gave up (`why` is PyTorch's message).
  virtual void allocation_failed(Bytes size, Category category, const Status& why) = 0;
  // `block` went back to its pool; its handle is stale from here on.
  virtual void freed(BlockHandle block) = 0;
  virtual void cache_emptied() = 0;
  virtual void pool_created(PoolId pool) = 0;
  virtual void routing_began(PoolId pool) = 0;
  virtual void routing_ended(PoolId pool) = 0;
  virtual void pool_released(PoolId pool) = 0;
  virtual void peaks_reset() = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_ALLOC_ALLOCATOR_OBSERVER_H_
