#include "alloc/caching_allocator.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "alloc/size_rules.h"

namespace gpumem {

namespace {

std::size_t slot(Category c) { return static_cast<std::size_t>(c); }

std::string pool_name(PoolId pool) { return "mempool_id " + std::to_string(pool.value); }

}  // namespace

CachingAllocator::CachingAllocator(Device& device, const AllocatorConfig& config)
    : device_(device), config_(config), large_(false, nullptr), small_(true, nullptr) {
  assert(validate_config(config).ok());
  // A large model's weights alone are a few thousand blocks: grow the table once, not by
  // doubling through the start-up.
  blocks_.reserve(4096);
}

CachingAllocator::~CachingAllocator() = default;

Result<BlockHandle> CachingAllocator::allocate(Bytes size, Category category) {
  if (size < bytes(0)) {
    return internal_error("CachingAllocator::allocate of a negative size " + format_bytes(size));
  }
  // pytorch c10/cuda/CUDACachingAllocator.cpp NativeCachingAllocator::allocate (size 0)
  if (size == bytes(0)) return BlockHandle{};

  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::malloc
  const Bytes rounded = round_size(size, config_);
  BlockPool& pool = pool_for(rounded);
  if (watch_ != nullptr && pool.owner == nullptr) {
    std::optional<Bytes>& smallest = pool.small ? watch_->smallest_small : watch_->smallest_large;
    if (!smallest || rounded < *smallest) smallest = rounded;
  }
  std::uint32_t index = take_free_block(pool, rounded);
  if (index == kNone) {
    Result<std::uint32_t> grown =
        grow(pool, rounded, size, segment_size_for(rounded, config_), category);
    if (!grown.ok()) {
      if (observer_ != nullptr) observer_->allocation_failed(size, category, grown.status());
      return grown.status();
    }
    index = *grown;
  }
  const BlockHandle block = hand_out(index, rounded, category);
  if (observer_ != nullptr) observer_->allocated(size, category, block, blocks_[index].address);
  return block;
}

Status CachingAllocator::free(BlockHandle block) {
  if (block.null()) return Status::ok_status();
  Result<std::uint32_t> found = allocated_index(block);
  if (!found.ok()) return found.status();
  const std::uint32_t index = *found;

  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::free
  Block& b = blocks_[index];
  b.allocated = false;
  ++b.generation;
  stats_.allocated.decrease(b.size);
  stats_.allocated_by_category[slot(b.category)].decrease(b.size);

  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::free_block
  const std::uint32_t prev = b.prev;
  const std::uint32_t next = b.next;
  if (prev != kNone && !blocks_[prev].allocated && blocks_[prev].mapped) merge_into(index, prev);
  if (next != kNone && !blocks_[next].allocated && blocks_[next].mapped) merge_into(index, next);
  insert_free(index);
  if (observer_ != nullptr) observer_->freed(block);
  return Status::ok_status();
}

Result<DevicePtr> CachingAllocator::address(BlockHandle block) const {
  Result<std::uint32_t> found = allocated_index(block);
  if (!found.ok()) return found.status();
  return blocks_[*found].address;
}

Result<BaseAllocation> CachingAllocator::base_allocation(BlockHandle block) const {
  Result<std::uint32_t> found = allocated_index(block);
  if (!found.ok()) return found.status();
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::getBaseAllocation
  if (blocks_[*found].segment != kNone) {
    return invalid_input(
        "Tensors allocated with expandable_segments:True cannot be shared between processes. "
        "Consider using expandable_segments:False in data loading workers via "
        "torch.cuda.memory._set_allocator_settings('expandable_segments:False')");
  }
  std::uint32_t head = *found;
  while (blocks_[head].prev != kNone) head = blocks_[head].prev;
  BaseAllocation base{blocks_[head].address, bytes(0)};
  for (std::uint32_t i = head; i != kNone; i = blocks_[i].next) base.size += blocks_[i].size;
  return base;
}

void CachingAllocator::empty_cache() {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::emptyCache
  release_cached_blocks();
  if (observer_ != nullptr) observer_->cache_emptied();
}

PoolId CachingAllocator::create_pool() {
  // pytorch c10/cuda/MemPool.cpp MemPool::graph_pool_handle
  const PoolId pool{next_pool_id_++};
  if (observer_ != nullptr) observer_->pool_created(pool);
  return pool;
}

Status CachingAllocator::begin_allocate_to_pool(PoolId pool) {
  if (pool.value == 0) {
    return internal_error("beginAllocateToPool: mempool_id 0 names the default pools");
  }
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::beginAllocateToPool
  PrivatePool* p = find_pool(pool);
  if (p != nullptr && std::find(routing_.begin(), routing_.end(), p) != routing_.end()) {
    return internal_error("beginAllocateToPool: already recording to " + pool_name(pool));
  }
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::create_or_incref_pool
  if (p == nullptr) {
    private_pools_.push_back(std::make_unique<PrivatePool>(pool));
    p = private_pools_.back().get();
  } else if (p->use_count == 0) {
    return internal_error("beginAllocateToPool: " + pool_name(pool) +
                          " was released by all its users");
  } else {
    ++p->use_count;
  }
  routing_.push_back(p);
  if (observer_ != nullptr) observer_->routing_began(pool);
  return Status::ok_status();
}

Status CachingAllocator::end_allocate_to_pool(PoolId pool) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::endAllocateToPool
  for (auto it = routing_.begin(); it != routing_.end(); ++it) {
    if ((*it)->id == pool) {
      routing_.erase(it);
      if (observer_ != nullptr) observer_->routing_ended(pool);
      return Status::ok_status();
    }
  }
  return internal_error("endAllocatePool: not currently recording to " + pool_name(pool));
}

Status CachingAllocator::release_pool(PoolId pool) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::releasePool
  PrivatePool* p = find_pool(pool);
  if (p == nullptr) return internal_error("releasePool: no private pool " + pool_name(pool));
  if (p->use_count == 0) {
    return internal_error("releasePool: " + pool_name(pool) + " has no users left");
  }
  // PyTorch's CUDAGraph::reset never runs mid-capture; releasing a pool still being
  // recorded to would let empty_cache() delete it under the routing.
  if (std::find(routing_.begin(), routing_.end(), p) != routing_.end()) {
    return internal_error("releasePool: still recording to " + pool_name(pool));
  }
  --p->use_count;
  if (observer_ != nullptr) observer_->pool_released(pool);
  return Status::ok_status();
}

std::optional<PrivatePoolInfo> CachingAllocator::pool_info(PoolId pool) const {
  const PrivatePool* p = find_pool(pool);
  if (p == nullptr) return std::nullopt;
  return PrivatePoolInfo{p->reserved, p->segments, p->use_count};
}

std::int64_t CachingAllocator::snapshot_segments() const {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::snapshot: one entry
  // per block whose predecessor is not a mapped block, over the cached blocks of the pools
  // that exist and every allocated block.
  std::int64_t n = 0;
  for (const Block& b : blocks_) {
    if (!b.live || !b.mapped) continue;
    if (!b.allocated && b.pool->owner != nullptr && b.pool->owner->orphaned) continue;
    if (b.prev == kNone || !blocks_[b.prev].mapped) ++n;
  }
  return n;
}

std::optional<CachingAllocator::State> CachingAllocator::snapshot() const {
  if (!private_pools_.empty()) return std::nullopt;
  return snapshot_with_pools();
}

std::optional<CachingAllocator::State> CachingAllocator::snapshot_with_pools() const {
  if (!expandable_.empty() || !routing_.empty() || !orphaned_pools_.empty()) return std::nullopt;
  State s;
  s.blocks = blocks_;
  s.pool_slot.resize(blocks_.size());
  for (size_t i = 0; i < blocks_.size(); ++i) {
    // A recycled record's pool pointer is stale (its pool may be gone): not read.
    const BlockPool* pool = blocks_[i].live ? blocks_[i].pool : nullptr;
    std::uint32_t slot = State::kLargeSlot;
    if (pool == &small_) {
      slot = State::kSmallSlot;
    } else if (pool != nullptr && pool != &large_) {
      for (size_t k = 0; k < private_pools_.size(); ++k) {
        if (pool == &private_pools_[k]->large) slot = static_cast<std::uint32_t>(2 + 2 * k);
        if (pool == &private_pools_[k]->small) slot = static_cast<std::uint32_t>(3 + 2 * k);
      }
    }
    s.pool_slot[i] = slot;
    s.blocks[i].pool = nullptr;
  }
  s.recycled = recycled_;
  s.large_free = large_.free;
  s.small_free = small_.free;
  for (const std::unique_ptr<PrivatePool>& p : private_pools_) {
    s.private_pools.push_back(
        State::Pool{p->id, p->use_count, p->segments, p->reserved, p->large.free, p->small.free});
  }
  s.stats = stats_;
  s.last_oom = last_oom_;
  s.next_pool_id = next_pool_id_;
  return s;
}

void CachingAllocator::restore(State s) {
  assert(routing_.empty() && orphaned_pools_.empty() && expandable_.empty());
  private_pools_.clear();
  for (State::Pool& p : s.private_pools) {
    auto pool = std::make_unique<PrivatePool>(p.id);
    pool->use_count = p.use_count;
    pool->segments = p.segments;
    pool->reserved = p.reserved;
    pool->large.free = std::move(p.large_free);
    pool->small.free = std::move(p.small_free);
    private_pools_.push_back(std::move(pool));
  }
  blocks_ = std::move(s.blocks);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    // A recycled record has no pool; a live one belongs to the pool its slot names.
    if (!blocks_[i].live) continue;
    const std::uint32_t slot = s.pool_slot[i];
    if (slot < 2) {
      blocks_[i].pool = slot == State::kSmallSlot ? &small_ : &large_;
    } else {
      PrivatePool& p = *private_pools_[(slot - 2) / 2];
      blocks_[i].pool = slot % 2 == 1 ? &p.small : &p.large;
    }
  }
  recycled_ = std::move(s.recycled);
  large_.free = std::move(s.large_free);
  small_.free = std::move(s.small_free);
  stats_ = s.stats;
  last_oom_ = std::move(s.last_oom);
  next_pool_id_ = s.next_pool_id;
}

void CachingAllocator::raise_peaks(const AllocatorStats& floor) {
  auto raise = [](MemoryStat& s, const MemoryStat& f) { s.peak = std::max(s.peak, f.peak); };
  raise(stats_.allocated, floor.allocated);
  raise(stats_.reserved, floor.reserved);
  for (size_t c = 0; c < kCategoryCount; ++c) {
    raise(stats_.allocated_by_category[c], floor.allocated_by_category[c]);
    raise(stats_.reserved_by_category[c], floor.reserved_by_category[c]);
  }
}

CachingAllocator::BlockPool& CachingAllocator::pool_for(Bytes rounded) {
  const bool small = is_small_request(rounded, config_);
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::get_pool (the most
  // recent capture whose filter accepts the stream; with one stream, the most recent)
  if (!routing_.empty()) {
    PrivatePool* p = routing_.back();
    return small ? p->small : p->large;
  }
  return small ? small_ : large_;
}

std::uint32_t CachingAllocator::take_free_block(BlockPool& pool, Bytes rounded) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::get_free_block: only
  // the best fit is considered; if the max_split_size rules refuse it, the search fails.
  std::size_t pos = pool.free.best_fit(rounded);
  if (pos == pool.free.size()) return kNone;
  // Under expandable segments a block counts as large as it could grow into the unmapped
  // space after it: the search moves on to larger blocks while the next one could grow less.
  if (blocks_[pool.free[pos].block()].segment != kNone) {
    while (pos + 1 < pool.free.size() &&
           expandable_size(pool.free[pos + 1].block()) < expandable_size(pool.free[pos].block())) {
      ++pos;
    }
  }
  if (!may_serve(pool.free[pos].size(), rounded, config_)) return kNone;
  const std::uint32_t index = pool.free[pos].block();
  pool.free.erase_at(pos);
  return index;
}

Result<std::uint32_t> CachingAllocator::new_segment(BlockPool& pool, Bytes size,
                                                    Category category) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::alloc_block
  Result<DevicePtr> ptr = device_.malloc(size, category);
  if (!ptr.ok()) return ptr.status();
  const std::uint32_t index = new_record();
  Block& b = blocks_[index];
  b.address = *ptr;
  b.size = size;
  b.pool = &pool;
  b.segment_category = category;
  stats_.reserved.increase(size);
  stats_.reserved_by_category[slot(category)].increase(size);
  ++stats_.segments;
  ++stats_.device_mallocs;
  if (pool.owner != nullptr) {
    ++pool.owner->segments;
    pool.owner->reserved += size;
  }
  return index;
}

Bytes CachingAllocator::expandable_size(std::uint32_t index) const {
  const Block& b = blocks_[index];
  const bool grows = b.next != kNone && !blocks_[b.next].mapped;
  return grows ? b.size + blocks_[b.next].size : b.size;
}

void CachingAllocator::splice_after(std::uint32_t index, std::uint32_t rest) {
  Block& b = blocks_[index];
  Block& r = blocks_[rest];
  r.prev = index;
  r.next = b.next;
  if (b.next != kNone) blocks_[b.next].prev = rest;
  b.next = rest;
}

std::uint32_t CachingAllocator::find_expandable_block(BlockPool& pool, Bytes rounded) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::find_expandable_block:
  // the lowest unmapped piece (or the free block right before it) from which free and
  // unmapped pieces reach `rounded` bytes; else a new range of 9/8 of the device's memory.
  for (const auto& [address, index] : pool.unmapped) {
    std::uint32_t start = index;
    const std::uint32_t prev = blocks_[index].prev;
    if (prev != kNone && !blocks_[prev].allocated) start = prev;
    Bytes room;
    for (std::uint32_t b = start; room < rounded && b != kNone && !blocks_[b].allocated;
         b = blocks_[b].next) {
      room += blocks_[b].size;
    }
    if (room >= rounded) return start;
  }
  const Bytes page = pool.small ? config_.small_buffer : config_.large_segment_size;
  const Bytes total = device_.mem_get_info().total;
  const std::int64_t pages = round_up(total + total / 8, page) / page;
  auto segment = std::make_unique<ExpandableSegment>();
  segment->base = next_virtual_address_;
  segment->page = page;
  segment->mapped.resize(static_cast<std::size_t>(pages));
  segment->category.resize(static_cast<std::size_t>(pages));
  next_virtual_address_ += static_cast<std::uint64_t>((page * pages).value());
  const std::uint32_t index = new_record();
  Block& b = blocks_[index];
  b.address = DevicePtr{segment->base};
  b.size = page * pages;
  b.segment = static_cast<std::uint32_t>(expandable_.size());
  b.pool = &pool;
  b.mapped = false;
  expandable_.push_back(std::move(segment));
  pool.unmapped.insert({b.address.address, index});
  return index;
}

Status CachingAllocator::map_block(std::uint32_t index, Bytes size, Category category) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::map_block and
  // ExpandableSegment::map: every page the first `size` bytes of the piece touch, one device
  // allocation each; the rest of the piece stays unmapped; the mapped part joins its free
  // neighbours.
  ExpandableSegment& seg = *expandable_[blocks_[index].segment];
  const std::uint64_t offset = blocks_[index].address.address - seg.base;
  const std::int64_t page = seg.page.value();
  const std::int64_t first = static_cast<std::int64_t>(offset) / page;
  const std::int64_t end =
      round_up(bytes(static_cast<std::int64_t>(offset)) + size, seg.page) / seg.page;
  for (std::int64_t i = first; i < end; ++i) {
    Result<DevicePtr> p = device_.malloc(seg.page, category);
    if (!p.ok()) {
      for (std::int64_t j = first; j < i; ++j) {
        device_.free(seg.mapped[static_cast<std::size_t>(j)]);
        seg.mapped[static_cast<std::size_t>(j)] = DevicePtr{};
      }
      return p.status();
    }
    seg.mapped[static_cast<std::size_t>(i)] = *p;
    seg.category[static_cast<std::size_t>(i)] = category;
  }
  const Bytes mapped = seg.page * (end - first);
  BlockPool& pool = *blocks_[index].pool;
  pool.unmapped.erase({blocks_[index].address.address, index});
  blocks_[index].mapped = true;
  if (mapped < blocks_[index].size) {
    const std::uint32_t rest = new_record();  // may move blocks_: index the table afresh
    Block& b = blocks_[index];
    Block& r = blocks_[rest];
    r.address = DevicePtr{b.address.address + static_cast<std::uint64_t>(mapped.value())};
    r.size = b.size - mapped;
    r.segment = b.segment;
    r.pool = b.pool;
    r.mapped = false;
    splice_after(index, rest);
    b.size = mapped;
    pool.unmapped.insert({r.address.address, rest});
  }
  const std::uint32_t prev = blocks_[index].prev;
  if (prev != kNone && !blocks_[prev].allocated && blocks_[prev].mapped) merge_into(index, prev);
  const std::uint32_t next = blocks_[index].next;
  if (next != kNone && !blocks_[next].allocated && blocks_[next].mapped) merge_into(index, next);
  insert_free(index);
  stats_.reserved.increase(mapped);
  stats_.reserved_by_category[slot(category)].increase(mapped);
  ++stats_.device_mallocs;
  if (pool.owner != nullptr) pool.owner->reserved += mapped;
  return Status::ok_status();
}

Result<std::uint32_t> CachingAllocator::allocate_expandable(BlockPool& pool, Bytes rounded,
                                                            Category category) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp
  // DeviceCachingAllocator::try_allocate_expandable_block: map the start of the piece
  // found, then as much of the unmapped pieces after it as the request still needs.
  std::uint32_t index = find_expandable_block(pool, rounded);
  if (!blocks_[index].mapped) {
    GPUMEM_RETURN_IF_ERROR(map_block(index, std::min(blocks_[index].size, rounded), category));
  }
  while (blocks_[index].size < rounded) {
    const std::uint32_t next = blocks_[index].next;  // unmapped; absorbs `index` once mapped
    GPUMEM_RETURN_IF_ERROR(
        map_block(next, std::min(rounded - blocks_[index].size, blocks_[next].size), category));
    index = next;
  }
  erase_free(index);
  // pytorch DeviceCachingAllocator::alloc_block: one cudaMalloc_count per miss served.
  if (pool.owner != nullptr) ++pool.owner->segments;
  return index;
}

void CachingAllocator::unmap_block(std::uint32_t index) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::unmap_block and
  // ExpandableSegment::unmap: the whole pages inside the free block go back to the device;
  // what is left before and after them stays a free mapped block.
  ExpandableSegment& seg = *expandable_[blocks_[index].segment];
  const std::int64_t page = seg.page.value();
  const std::int64_t start = static_cast<std::int64_t>(blocks_[index].address.address - seg.base);
  const std::int64_t first = round_up(bytes(start), seg.page) / seg.page;
  const std::int64_t last = (start + blocks_[index].size.value()) / page;
  if (first >= last) return;
  erase_free(index);
  BlockPool& pool = *blocks_[index].pool;
  const Bytes before = bytes(first * page - start);
  const Bytes unmapped = seg.page * (last - first);
  const Bytes after = blocks_[index].size - before - unmapped;
  if (before > bytes(0)) {
    const std::uint32_t head = new_record();
    Block& h = blocks_[head];
    Block& b = blocks_[index];
    h.address = b.address;
    h.size = before;
    h.segment = b.segment;
    h.pool = b.pool;
    h.prev = b.prev;
    h.next = index;
    if (b.prev != kNone) blocks_[b.prev].next = head;
    b.prev = head;
    insert_free(head);
  }
  if (after > bytes(0)) {
    const std::uint32_t tail = new_record();
    Block& t = blocks_[tail];
    const Block& b = blocks_[index];
    t.address = DevicePtr{seg.base + static_cast<std::uint64_t>(last * page)};
    t.size = after;
    t.segment = b.segment;
    t.pool = b.pool;
    splice_after(index, tail);
    insert_free(tail);
  }
  Block& b = blocks_[index];
  b.address = DevicePtr{seg.base + static_cast<std::uint64_t>(first * page)};
  b.size = unmapped;
  b.mapped = false;
  const std::uint32_t prev = b.prev;
  if (prev != kNone && !blocks_[prev].allocated && !blocks_[prev].mapped) merge_into(index, prev);
  const std::uint32_t next = blocks_[index].next;
  if (next != kNone && !blocks_[next].allocated && !blocks_[next].mapped) merge_into(index, next);
  pool.unmapped.insert({blocks_[index].address.address, index});
  for (std::int64_t i = first; i < last; ++i) {
    const auto p = static_cast<std::size_t>(i);
    device_.free(seg.mapped[p]);
    seg.mapped[p] = DevicePtr{};
    stats_.reserved_by_category[slot(seg.category[p])].decrease(seg.page);
  }
  stats_.reserved.decrease(unmapped);
  ++stats_.device_frees;
  if (pool.owner != nullptr) {
    --pool.owner->segments;
    pool.owner->reserved -= unmapped;
  }
}

void CachingAllocator::release_expandable_segment(std::uint32_t index) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp
  // DeviceCachingAllocator::release_expandable_segment: nothing mapped is left.
  Block& b = blocks_[index];
  b.pool->unmapped.erase({b.address.address, index});
  expandable_[b.segment].reset();
  recycle_record(index);
}

Result<std::uint32_t> CachingAllocator::grow(BlockPool& pool, Bytes rounded, Bytes size,
                                             Bytes segment, Category category) {
  if (config_.expandable_segments) {
    // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::malloc with
    // alloc_block's expandable branch. Releasing cached oversize blocks (max_split_size)
    // is skipped: PyTorch's release_block refuses expandable blocks with an assertion.
    Result<std::uint32_t> index = allocate_expandable(pool, rounded, category);
    if (index.ok() || index.status().code() != StatusCode::kOutOfMemory) return index;
    if (routing_.empty()) {
      release_cached_blocks();
      ++stats_.alloc_retries;
      index = allocate_expandable(pool, rounded, category);
      if (index.ok() || index.status().code() != StatusCode::kOutOfMemory) return index;
    }
    return out_of_memory(size, segment);
  }
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::malloc: allocate;
  // else release cached oversize blocks and allocate; else (not while routing to a private
  // pool) release every unsplit cached segment and allocate once more.
  Result<std::uint32_t> index = new_segment(pool, segment, category);
  if (index.ok() || index.status().code() != StatusCode::kOutOfMemory) return index;
  if (release_oversize_blocks(pool, rounded)) {
    index = new_segment(pool, segment, category);
    if (index.ok() || index.status().code() != StatusCode::kOutOfMemory) return index;
  }
  if (routing_.empty()) {
    release_cached_blocks();
    ++stats_.alloc_retries;
    index = new_segment(pool, segment, category);
    if (index.ok() || index.status().code() != StatusCode::kOutOfMemory) return index;
  }
  return out_of_memory(size, segment);
}

BlockHandle CachingAllocator::hand_out(std::uint32_t index, Bytes rounded, Category category) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::alloc_found_block: the
  // request takes the front of the block, the rest stays cached right after it.
  if (should_split(blocks_[index].size, rounded, blocks_[index].pool->small, config_)) {
    const std::uint32_t rest = new_record();  // may move blocks_: index the table afresh
    Block& b = blocks_[index];
    Block& r = blocks_[rest];
    r.address = DevicePtr{b.address.address + static_cast<std::uint64_t>(rounded.value())};
    r.size = b.size - rounded;
    r.segment = b.segment;
    r.pool = b.pool;
    r.segment_category = b.segment_category;
    r.prev = index;
    r.next = b.next;
    if (b.next != kNone) blocks_[b.next].prev = rest;
    b.next = rest;
    b.size = rounded;
    insert_free(rest);
  }
  Block& b = blocks_[index];
  b.allocated = true;
  b.category = category;
  stats_.allocated.increase(b.size);
  stats_.allocated_by_category[slot(category)].increase(b.size);
  return BlockHandle{index, b.generation};
}

void CachingAllocator::merge_into(std::uint32_t dst, std::uint32_t src) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::try_merge_blocks
  if (blocks_[src].mapped) {
    erase_free(src);
  } else {
    blocks_[src].pool->unmapped.erase({blocks_[src].address.address, src});
  }
  Block& d = blocks_[dst];
  const Block& s = blocks_[src];
  if (d.prev == src) {
    d.address = s.address;
    d.prev = s.prev;
    if (d.prev != kNone) blocks_[d.prev].next = dst;
  } else {
    d.next = s.next;
    if (d.next != kNone) blocks_[d.next].prev = dst;
  }
  d.size += s.size;
  recycle_record(src);
}

bool CachingAllocator::release_oversize_blocks(BlockPool& pool, Bytes rounded) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp
  // DeviceCachingAllocator::release_available_cached_blocks: with a max_split_size, free the
  // smallest cached block of at least max(request, max_split_size), or else the largest
  // oversize blocks until that much is freed. Blocks of max_split_size or more are never
  // split, so each one is a whole segment.
  if (!config_.max_split_size) return false;
  const Bytes max_split = *config_.max_split_size;
  const Bytes target = std::max(rounded, max_split);
  FreeBlockIndex& free = pool.free;
  const std::size_t pos = free.best_fit(target);
  if (pos < free.size()) {
    const std::uint32_t index = free[pos].block();
    free.erase_at(pos);
    release_segment(index);
    return true;
  }
  Bytes released;
  while (!free.empty() && released < target && free[free.size() - 1].size() >= max_split) {
    const std::uint32_t index = free[free.size() - 1].block();
    released += free[free.size() - 1].size();
    free.erase_at(free.size() - 1);
    release_segment(index);
  }
  return released >= target;
}

void CachingAllocator::release_cached_blocks() {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::release_cached_blocks
  if (routing_.empty()) {
    release_blocks(large_);
    release_blocks(small_);
  }
  std::vector<std::unique_ptr<PrivatePool>> kept;
  for (std::unique_ptr<PrivatePool>& p : private_pools_) {
    if (p->use_count == 0) {
      release_blocks(p->small);
      release_blocks(p->large);
    }
    if (p->use_count != 0 || p->segments != 0) {
      kept.push_back(std::move(p));
      continue;
    }
    // Deleted. Under expandable segments it can still hold blocks (an allocated one, the
    // rest of a partly free page, its unmapped range): their records keep it alive.
    const BlockPool* small = &p->small;
    const BlockPool* large = &p->large;
    const bool holds_blocks = std::any_of(blocks_.begin(), blocks_.end(), [&](const Block& b) {
      return b.live && (b.pool == small || b.pool == large);
    });
    if (holds_blocks) {
      p->orphaned = true;
      orphaned_pools_.push_back(std::move(p));
    }
  }
  private_pools_ = std::move(kept);
}

void CachingAllocator::release_blocks(BlockPool& pool) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::release_blocks: every
  // unsplit cudaMalloc segment; the whole free pages of expandable ones, and an expandable
  // range once nothing of it is mapped.
  std::vector<std::uint32_t> to_unmap;
  pool.free.erase_if([this, &to_unmap](const FreeBlockIndex::Entry& e) {
    const Block& b = blocks_[e.block()];
    if (b.segment != kNone) {
      to_unmap.push_back(e.block());
      return false;
    }
    if (b.prev != kNone || b.next != kNone) return false;
    release_segment(e.block());
    return true;
  });
  for (std::uint32_t index : to_unmap) {
    unmap_block(index);
    const Block& b = blocks_[index];
    if (b.prev == kNone && b.next == kNone) release_expandable_segment(index);
  }
}

void CachingAllocator::release_segment(std::uint32_t index) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::release_block (the
  // caller has taken the block out of its pool's free index)
  Block& b = blocks_[index];
  assert(b.prev == kNone && b.next == kNone);
  device_.free(b.address);
  stats_.reserved.decrease(b.size);
  stats_.reserved_by_category[slot(b.segment_category)].decrease(b.size);
  --stats_.segments;
  ++stats_.device_frees;
  if (b.pool->owner != nullptr) {
    --b.pool->owner->segments;
    b.pool->owner->reserved -= b.size;
  }
  recycle_record(index);
}

Status CachingAllocator::out_of_memory(Bytes size, Bytes segment) {
  // pytorch c10/cuda/CUDACachingAllocator.cpp DeviceCachingAllocator::malloc (the message
  // counts cached blocks of every private pool, released or not)
  const MemInfo info = device_.mem_get_info();
  OomReport report;
  report.device_index = config_.device_index;
  report.requested = size;
  report.segment_size = segment;
  report.device_free = info.free;
  report.device_total = info.total;
  report.allocated = stats_.allocated.current;
  report.reserved = stats_.reserved.current;
  for (const std::unique_ptr<PrivatePool>& p : private_pools_) {
    for (const FreeBlockIndex::Entry& e : p->large.free.entries()) {
      report.private_pool_cached += e.size();
    }
    for (const FreeBlockIndex::Entry& e : p->small.free.entries()) {
      report.private_pool_cached += e.size();
    }
  }
  ++stats_.ooms;
  last_oom_ = report;
  return Status(StatusCode::kOutOfMemory, format_oom_message(report));
}

std::uint32_t CachingAllocator::new_record() {
  std::uint32_t index;
  if (!recycled_.empty()) {
    index = recycled_.back();
    recycled_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(blocks_.size());
    blocks_.emplace_back();
  }
  Block& b = blocks_[index];
  const std::uint32_t generation = b.generation;
  b = Block{};
  b.generation = generation;
  b.live = true;
  return index;
}

void CachingAllocator::recycle_record(std::uint32_t index) {
  Block& b = blocks_[index];
  b.live = false;
  ++b.generation;
  recycled_.push_back(index);
}

void CachingAllocator::insert_free(std::uint32_t index) {
  const Block& b = blocks_[index];
  b.pool->free.insert({b.size, b.address.address, index});
}

void CachingAllocator::erase_free(std::uint32_t index) {
  const Block& b = blocks_[index];
  b.pool->free.erase({b.size, b.address.address, index});
}

Result<std::uint32_t> CachingAllocator::allocated_index(BlockHandle block) const {
  if (block.index < blocks_.size()) {
    const Block& b = blocks_[block.index];
    if (b.live && b.allocated && b.generation == block.generation) return block.index;
  }
  return internal_error("CachingAllocator: block handle " + std::to_string(block.index) + "/" +
                        std::to_string(block.generation) + " is not an allocated block");
}

CachingAllocator::PrivatePool* CachingAllocator::find_pool(PoolId pool) const {
  for (const std::unique_ptr<PrivatePool>& p : private_pools_) {
    if (p->id == pool) return p.get();
  }
  return nullptr;
}

}  // namespace gpumem
