// PyTorch's CUDA caching allocator, emulated on top of a Device's raw allocations.
//
// Serving engines allocate tensors through PyTorch's caching allocator; what the driver
// sees, and what cudaMemGetInfo reports, are its segments, not the tensors. gpumem runs the
// same emulation over SimDevice (simulator) and CudaDevice (probe), so both round, pool,
// split, cache and release exactly alike. One CachingAllocator stands for one process's
// allocator on one device (PyTorch's DeviceCachingAllocator).
//
// The rules, each cited where it is applied (pytorch c10/cuda/CUDACachingAllocator.cpp):
//  * a request is rounded to a block size (size_rules.h) and served from the small pool
//    (<= 1 MiB) or the large pool, or from a private pool while allocations are routed to it;
//  * the pool's smallest cached free block that fits is taken (lowest address on ties), if
//    the max_split_size rules allow it; otherwise a new segment is allocated from the
//    device (2 MiB, 20 MiB, or the request rounded up to 2 MiB) and never shared between
//    pools;
//  * the block taken is split when the rest is worth keeping (small: >= 512 B left; large:
//    > 1 MiB left and the request below max_split_size); the rest stays cached;
//  * a freed block merges with free neighbours of its own segment and returns to its own
//    pool, whichever pool allocations are routed to at the time;
//  * when the device is out of memory: release cached oversize blocks (only with a
//    max_split_size) and retry, then release every unsplit cached segment and retry once
//    more (skipped while allocations are routed to a private pool), then fail with
//    PyTorch's message (oom_report.h);
//  * empty_cache() returns every unsplit cached segment to the device: those of the default
//    pools (not while routing to a private pool) and those of released private pools;
//  * private pools (CUDA-graph pools): create_pool() is graph_pool_handle(); begin/end route
//    allocations as CUDAGraph::capture_begin/capture_end do; each begin adds a user
//    (use_count) and each release_pool() (CUDAGraph::reset) drops one; a pool's segments can
//    be released only once it has no users, and the pool disappears when it has no
//    segments left;
//  * expandable segments (config.expandable_segments): a pool's miss maps pages (2 MiB for
//    the small pool, large_segment_size for the large one) at the lowest address of its one
//    growing virtual range where enough free and unmapped space lies together, instead of
//    allocating a segment; each page is one Device::malloc; the best fit prefers, among
//    blocks that fit, one that cannot grow into unmapped space; every block with at least
//    min_block_size left over is split; empty_cache unmaps every whole page of every free
//    block, and a range with nothing mapped left is released. PyTorch counts a private
//    pool's "cudaMalloc"s up once per miss and down once per unmapped run of pages, so the
//    count can reach zero while a tensor still lives in the pool, and PyTorch then deletes
//    the pool under it (what happens to that tensor's block afterwards is undefined
//    behaviour in PyTorch); the emulation drops the pool at the same moment but keeps its
//    blocks, which then never return to any cache.
//
// Simplifications, none of which changes the byte counts of a single-stream start-up:
// one stream (PyTorch keys blocks by stream and defers frees of blocks used on other
// streams); no roundup_power2_divisions, garbage_collection_threshold or memory fraction;
// no free-memory callbacks. Not thread-safe: each rank owns its allocator.
//
// Blocks are named by `BlockHandle`s: an index into the allocator's block table plus a
// generation, so a stale or doubly freed handle is an error, not corruption. Steady-state
// allocate/free do not touch the heap: block records are recycled and the free-block
// indexes (free_block_index.h) keep their capacity.
#ifndef GPUMEM_ALLOC_CACHING_ALLOCATOR_H_
#define GPUMEM_ALLOC_CACHING_ALLOCATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "alloc/allocator_config.h"
#include "alloc/allocator_observer.h"
#include "alloc/allocator_stats.h"
#include "alloc/free_block_index.h"
#include "alloc/oom_report.h"
#include "core/status.h"
#include "core/units.h"
#include "device/category.h"
#include "device/device.h"

namespace gpumem {

// A block handed out by CachingAllocator::allocate. The null handle stands for the empty
// allocation of a zero-byte request, as PyTorch returns a null pointer for it.
struct BlockHandle {
  static constexpr std::uint32_t kNullIndex = 0xFFFFFFFFu;
  std::uint32_t index = kNullIndex;
  std::uint32_t generation = 0;
  bool null() const { return index == kNullIndex; }
};

// Names a private pool (PyTorch's MempoolId_t). The value 0 is never a private pool.
struct PoolId {
  std::uint64_t value = 0;
  friend bool operator==(PoolId, PoolId) = default;
};

// The device allocation (segment) a block lies in, as getBaseAllocation reports it: what
// an IPC export of the block's tensor shares.
struct BaseAllocation {
  DevicePtr base;
  Bytes size;
};

struct PrivatePoolInfo {
  Bytes reserved;     // sum of the pool's segments
  int segments = 0;   // segments held from the device
  int use_count = 0;  // captures begun on it and not yet released
};

class CachingAllocator {
 public:
  // REQUIRES: validate_config(config).ok(). `device` must outlive the allocator.
  CachingAllocator(Device& device, const AllocatorConfig& config);
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;
  // Segments still held stay allocated on the device, as at the exit of a process that
  // never emptied its cache.
  ~CachingAllocator();

  // Serves `size` bytes (rounded, pooled and cached as described above); a zero size gives
  // the null handle. kOutOfMemory carries PyTorch's message and leaves last_oom() set; any
  // other device error is passed on unchanged.
  Result<BlockHandle> allocate(Bytes size, Category category);
  // Returns the block to its pool's cache. Freeing the null handle does nothing; a handle
  // that is not allocated is kInternal.
  Status free(BlockHandle block);

  // Under expandable segments an address is one of the emulation's virtual ranges.
  Result<DevicePtr> address(BlockHandle block) const;
  // kInvalidInput, with PyTorch's message, for a block in an expandable segment: PyTorch
  // cannot share those between processes.
  Result<BaseAllocation> base_allocation(BlockHandle block) const;

  // torch.cuda.empty_cache().
  void empty_cache();

  const AllocatorConfig& config() const { return config_; }
  const AllocatorStats& stats() const { return stats_; }
  Bytes memory_allocated() const { return stats_.allocated.current; }
  Bytes memory_reserved() const { return stats_.reserved.current; }
  Bytes max_memory_allocated() const { return stats_.allocated.peak; }
  Bytes max_memory_reserved() const { return stats_.reserved.peak; }
  // torch.cuda.reset_peak_memory_stats(): every peak, aggregate and by category.
  void reset_peak_stats() {
    stats_.reset_peaks();
    if (observer_ != nullptr) observer_->peaks_reset();
  }

  // Reports every request served from here on to `observer` (null: to nobody). `observer`
  // must outlive the allocator or be replaced first.
  void set_observer(AllocatorObserver* observer) { observer_ = observer; }

  // The numbers of the last allocation that failed for good, if any.
  const std::optional<OomReport>& last_oom() const { return last_oom_; }

  // torch.cuda.graph_pool_handle(): a fresh id; the pool itself is created by the first
  // begin_allocate_to_pool that names it.
  PoolId create_pool();
  // Routes allocations to the private pool `pool` (creating it, or adding a user to it)
  // until end_allocate_to_pool; the most recent routing wins while several are active.
  Status begin_allocate_to_pool(PoolId pool);
  Status end_allocate_to_pool(PoolId pool);
  // Drops one user of `pool`; without users its cached segments go at the next
  // empty_cache() or device out-of-memory.
  Status release_pool(PoolId pool);
  // Empty when no such pool exists (never created, or gone after its last segment).
  std::optional<PrivatePoolInfo> pool_info(PoolId pool) const;

  // The segments torch.cuda.memory_snapshot() lists: every cudaMalloc segment, and every
  // contiguous mapped range of an expandable segment (stats().segments counts only the
  // former, as PyTorch's segment counter does).
  std::int64_t snapshot_segments() const;

  struct State;
  // The whole state of an allocator that has no private pool and no expandable segment,
  // free of pointers: two such allocators with equal configs and equal states, over
  // devices that answer alike, behave identically, so a replay can be answered by restoring
  // the state it once ended in (sim/weight_load_memo.h). Empty while a private pool or an
  // expandable segment exists.
  std::optional<State> snapshot() const;
  // As snapshot(), private pools included (sim/capture_memo.h); empty while an expandable
  // segment, a routing to a private pool or a pool PyTorch deleted under live blocks exists.
  std::optional<State> snapshot_with_pools() const;
  // REQUIRES: no routing, orphaned pool or expandable segment exists; `state` came from
  // snapshot() or snapshot_with_pools() of an allocator with this config.
  void restore(State state);

  // The smallest rounded request served from each default pool while a watch is set
  // (sim/capture_memo.h: free blocks of a default pool below it are never candidates).
  struct RequestWatch {
    std::optional<Bytes> smallest_small;
    std::optional<Bytes> smallest_large;
  };
  // Null: no watch.
  void set_request_watch(RequestWatch* watch) { watch_ = watch; }
  // Every peak becomes at least `floor`'s: after reset_peak_stats() and a run, the peaks
  // are those of a run without the reset.
  void raise_peaks(const AllocatorStats& floor);

 private:
  static constexpr std::uint32_t kNone = BlockHandle::kNullIndex;

  struct BlockPool;
  struct PrivatePool;

  // One block: a whole segment or a piece of one. Pieces of a segment form a list in
  // address order through prev/next. In an expandable segment the pieces cover the whole
  // virtual range, mapped or not; unmapped pieces are never allocated.
  struct Block {
    DevicePtr address;
    Bytes size;
    std::uint32_t prev = kNone;
    std::uint32_t next = kNone;
    std::uint32_t generation = 0;   // bumped when the block is freed or its record recycled
    std::uint32_t segment = kNone;  // its expandable segment; kNone for a cudaMalloc one
    BlockPool* pool = nullptr;
    Category category = Category::kOther;          // request holding it, when allocated
    Category segment_category = Category::kOther;  // request that created its segment
    bool allocated = false;
    bool mapped = true;
    bool live = false;  // false while the record sits on the recycling list
    friend bool operator==(const Block&, const Block&) = default;
  };

  struct BlockPool {
    BlockPool(bool small_pool, PrivatePool* owner_pool) : small(small_pool), owner(owner_pool) {}
    FreeBlockIndex free;
    // The unmapped pieces of the pool's expandable segments, by address.
    std::set<std::pair<std::uint64_t, std::uint32_t>> unmapped;
    bool small;
    PrivatePool* owner;  // null for the two default pools
  };

  // pytorch c10/cuda/CUDACachingAllocator.cpp ExpandableSegment: a virtual range of `pages`
  // pages and the device allocation mapped at each, null where nothing is.
  struct ExpandableSegment {
    std::uint64_t base = 0;
    Bytes page;
    std::vector<DevicePtr> mapped;
    std::vector<Category> category;  // of the request each page was mapped for
  };

  // pytorch c10/cuda/CUDACachingAllocator.cpp PrivatePool
  struct PrivatePool {
    explicit PrivatePool(PoolId pool_id) : id(pool_id), large(false, this), small(true, this) {}
    PoolId id;
    int use_count = 1;
    int segments = 0;  // PyTorch's cudaMalloc_count
    Bytes reserved;
    bool orphaned = false;  // deleted by PyTorch while blocks of its own remained
    BlockPool large;
    BlockPool small;
  };

  BlockPool& pool_for(Bytes rounded);
  std::uint32_t take_free_block(BlockPool& pool, Bytes rounded);
  Bytes expandable_size(std::uint32_t index) const;
  Result<std::uint32_t> allocate_expandable(BlockPool& pool, Bytes rounded, Category category);
  std::uint32_t find_expandable_block(BlockPool& pool, Bytes rounded);
  Status map_block(std::uint32_t index, Bytes size, Category category);
  void unmap_block(std::uint32_t index);
  void release_expandable_segment(std::uint32_t index);
  void splice_after(std::uint32_t index, std::uint32_t rest);
  Result<std::uint32_t> new_segment(BlockPool& pool, Bytes size, Category category);
  Result<std::uint32_t> grow(BlockPool& pool, Bytes rounded, Bytes size, Bytes segment,
                             Category category);
  BlockHandle hand_out(std::uint32_t index, Bytes rounded, Category category);
  void merge_into(std::uint32_t dst, std::uint32_t src);
  bool release_oversize_blocks(BlockPool& pool, Bytes rounded);
  void release_cached_blocks();
  void release_blocks(BlockPool& pool);
  void release_segment(std::uint32_t index);
  Status out_of_memory(Bytes size, Bytes segment);

  std::uint32_t new_record();
  void recycle_record(std::uint32_t index);
  void insert_free(std::uint32_t index);
  void erase_free(std::uint32_t index);
  Result<std::uint32_t> allocated_index(BlockHandle block) const;
  PrivatePool* find_pool(PoolId pool) const;

  Device& device_;
  AllocatorConfig config_;
  AllocatorStats stats_;
  std::optional<OomReport> last_oom_;

  std::vector<Block> blocks_;
  std::vector<std::uint32_t> recycled_;

  BlockPool large_;
  BlockPool small_;
  std::vector<std::unique_ptr<PrivatePool>> private_pools_;
  // Pools PyTorch deleted while blocks of theirs remained (expandable segments only): kept
  // so that those blocks stay valid.
  std::vector<std::unique_ptr<PrivatePool>> orphaned_pools_;
  std::vector<PrivatePool*> routing_;  // PyTorch's captures_underway, oldest first
  std::uint64_t next_pool_id_ = 1;
  // Expandable segments by index, null once released; the next virtual range's address.
  std::vector<std::unique_ptr<ExpandableSegment>> expandable_;
  std::uint64_t next_virtual_address_ = 1ULL << 56;
  AllocatorObserver* observer_ = nullptr;
  RequestWatch* watch_ = nullptr;
  friend class AllocatorStateDelta;
};

struct CachingAllocator::State {
  // A live record's pool by slot: 0 the large default pool, 1 the small one, 2 + 2k and
  // 3 + 2k the large and small pools of private_pools[k].
  static constexpr std::uint32_t kLargeSlot = 0;
  static constexpr std::uint32_t kSmallSlot = 1;
  struct Pool {
    PoolId id;
    int use_count = 0;
    int segments = 0;
    Bytes reserved;
    FreeBlockIndex large_free;
    FreeBlockIndex small_free;
    friend bool operator==(const Pool&, const Pool&) = default;
  };
  std::vector<Block> blocks;  // `pool` null: `pool_slot` says which
  std::vector<std::uint32_t> pool_slot;
  std::vector<std::uint32_t> recycled;
  FreeBlockIndex large_free;
  FreeBlockIndex small_free;
  std::vector<Pool> private_pools;
  AllocatorStats stats;
  std::optional<OomReport> last_oom;
  std::uint64_t next_pool_id = 1;
  friend bool operator==(const State&, const State&) = default;
};

}  // namespace gpumem

#endif  // GPUMEM_ALLOC_CACHING_ALLOCATOR_H_
