#include "alloc/state_delta.h"

#include <algorithm>
#include <tuple>

namespace gpumem {
namespace {

using State = CachingAllocator::State;
using Block = decltype(State::blocks)::value_type;

bool is_default_slot(std::uint32_t slot) { return slot < 2; }

// The threshold below which a free block of a default pool's slot is invisible.
const std::optional<Bytes>& threshold(const AllocatorStateDelta::Visibility& v,
                                      std::uint32_t slot) {
  return slot == State::kSmallSlot ? v.small_from : v.large_from;
}

bool invisible_free(const State& s, std::uint32_t i, const AllocatorStateDelta::Visibility& v) {
  const Block& b = s.blocks[i];
  if (!b.live || b.allocated || !is_default_slot(s.pool_slot[i])) return false;
  const std::optional<Bytes>& from = threshold(v, s.pool_slot[i]);
  return !from || b.size < *from;
}

// Everything of a record the abstraction keeps, but its size.
auto kept_fields(const Block& b) {
  return std::tie(b.prev, b.next, b.generation, b.segment, b.category, b.segment_category,
                  b.allocated, b.mapped, b.live);
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // FNV-1a over the value's eight bytes, folded as one word for speed.
  h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return h * 0x100000001B3ULL;
}

// The free index's entries, in order, as (record, size): sizes of invisible blocks left out.
bool same_index(const FreeBlockIndex& a, const FreeBlockIndex& b, const State& sa, const State& sb,
                const AllocatorStateDelta::Visibility& v) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    const std::uint32_t i = a[k].block();
    const bool hidden = invisible_free(sa, i, v);
    if (hidden != invisible_free(sb, b[k].block(), v)) return false;
    if (hidden) continue;  // invisible blocks come first; their order is their sizes'
    if (b[k].block() != i || a[k].size() != b[k].size()) return false;
  }
  return true;
}

void add(MemoryStat& out, const MemoryStat& now, const MemoryStat& before,
         const MemoryStat& after) {
  out.current = now.current + (after.current - before.current);
  out.peak = std::max(now.peak, now.current + (after.peak - before.current));
}

}  // namespace

bool AllocatorStateDelta::abstracted(const State& s, std::uint32_t i) const {
  return (s.blocks[i].live && s.blocks[i].allocated) || invisible_free(s, i, visibility_);
}

std::uint64_t AllocatorStateDelta::canonical_hash(const State& s, const Visibility& v) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  h = mix(h, s.blocks.size());
  for (std::uint32_t i = 0; i < s.blocks.size(); ++i) {
    const Block& b = s.blocks[i];
    h = mix(h, (static_cast<std::uint64_t>(b.generation) << 1) | b.live);
    if (!b.live) continue;  // the rest of a recycled record is stale and never read
    h = mix(h, (static_cast<std::uint64_t>(b.prev) << 32) | b.next);
    h = mix(h, (static_cast<std::uint64_t>(b.segment) << 32) | s.pool_slot[i]);
    h = mix(h, (static_cast<std::uint64_t>(b.allocated) << 1) | b.mapped);
    const bool sized = !b.allocated && !invisible_free(s, i, v);
    if (sized) h = mix(h, static_cast<std::uint64_t>(b.size.value()));
  }
  h = mix(h, s.recycled.size());
  h = mix(h, s.private_pools.size());
  h = mix(h, s.next_pool_id);
  return h;
}

std::optional<AllocatorStateDelta> AllocatorStateDelta::make(const State& before,
                                                             const State& after,
                                                             std::uint64_t device_next,
                                                             Visibility visibility) {
  AllocatorStateDelta d;
  d.visibility_ = visibility;
  const std::uint32_t n0 = static_cast<std::uint32_t>(before.blocks.size());
  const std::uint32_t n1 = static_cast<std::uint32_t>(after.blocks.size());
  if (n1 < n0) return std::nullopt;  // the table never shrinks
  // The live blocks of the start state, by address, to find the one a block lies in.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> by_address;
  for (std::uint32_t i = 0; i < n0; ++i) {
    if (before.blocks[i].live) by_address.emplace_back(before.blocks[i].address.address, i);
  }
  std::sort(by_address.begin(), by_address.end());
  d.source_.assign(n1, 2);
  for (std::uint32_t i = 0; i < n1; ++i) {
    const Block& b = after.blocks[i];
    if (i < n0) {
      const Block& a = before.blocks[i];
      const bool same_slot = !a.live || !b.live || before.pool_slot[i] == after.pool_slot[i];
      if (a == b && same_slot) {
        d.source_[i] = 0;
        continue;
      }
      if (d.abstracted(before, i)) {
        // Only its links may have changed (a neighbour split or merged).
        if (a.address != b.address || a.size != b.size || a.generation != b.generation ||
            a.allocated != b.allocated || a.live != b.live || !same_slot ||
            a.category != b.category || a.segment != b.segment) {
          return std::nullopt;
        }
        d.source_[i] = 1;
        continue;
      }
    }
    // A recycled record is relocated too: nothing reads it before it is reset, but the
    // state is then the replay's to the byte.
    const std::uint64_t at = b.address.address;
    if (at >= device_next) {
      d.relocations_.push_back({i, kNew, at - device_next});
      continue;
    }
    auto it = std::upper_bound(by_address.begin(), by_address.end(),
                               std::make_pair(at, std::uint32_t{0xFFFFFFFFu}));
    if (it == by_address.begin()) return std::nullopt;
    --it;
    const Block& base = before.blocks[it->second];
    if (at >= it->first + static_cast<std::uint64_t>(base.size.value()) ||
        d.abstracted(before, it->second)) {
      return std::nullopt;
    }
    d.relocations_.push_back({i, it->second, at - it->first});
  }
  d.before_ = before;
  d.after_ = after;
  d.hash_ = canonical_hash(before, visibility);
  return d;
}

bool AllocatorStateDelta::matches(const State& now) const {
  const State& s = before_;
  if (now.blocks.size() != s.blocks.size() || now.pool_slot != s.pool_slot ||
      now.recycled != s.recycled || now.next_pool_id != s.next_pool_id ||
      now.last_oom != s.last_oom || now.private_pools.size() != s.private_pools.size()) {
    return false;
  }
  for (std::uint32_t i = 0; i < s.blocks.size(); ++i) {
    const Block& a = s.blocks[i];
    const Block& b = now.blocks[i];
    if (a.live != b.live || a.generation != b.generation) return false;
    if (!a.live) continue;  // the rest of a recycled record is stale and never read
    if (kept_fields(a) != kept_fields(b)) return false;
    if (a.allocated) continue;
    const bool hidden = invisible_free(s, i, visibility_);
    if (hidden != invisible_free(now, i, visibility_)) return false;
    if (!hidden && a.size != b.size) return false;
  }
  if (!same_index(s.large_free, now.large_free, s, now, visibility_) ||
      !same_index(s.small_free, now.small_free, s, now, visibility_)) {
    return false;
  }
  for (size_t k = 0; k < s.private_pools.size(); ++k) {
    const State::Pool& p = s.private_pools[k];
    const State::Pool& q = now.private_pools[k];
    if (!(p.id == q.id) || p.use_count != q.use_count || p.segments != q.segments ||
        p.reserved != q.reserved || !same_index(p.large_free, q.large_free, s, now, visibility_) ||
        !same_index(p.small_free, q.small_free, s, now, visibility_)) {
      return false;
    }
  }
  return true;
}

State AllocatorStateDelta::apply(const State& now, std::uint64_t device_next) const {
  State out;
  const size_t n1 = after_.blocks.size();
  out.blocks.resize(n1);
  for (size_t i = 0; i < n1; ++i) {
    switch (source_[i]) {
      case 0:
        out.blocks[i] = now.blocks[i];
        break;
      case 1:
        out.blocks[i] = now.blocks[i];
        out.blocks[i].prev = after_.blocks[i].prev;
        out.blocks[i].next = after_.blocks[i].next;
        break;
      default:
        out.blocks[i] = after_.blocks[i];
        break;
    }
  }
  for (const Relocation& r : relocations_) {
    const std::uint64_t base = r.base == kNew ? device_next : now.blocks[r.base].address.address;
    out.blocks[r.index].address = DevicePtr{base + r.offset};
  }
  out.pool_slot = after_.pool_slot;
  out.recycled = after_.recycled;
  auto rebuild = [&out](const FreeBlockIndex& from) {
    std::vector<FreeBlockIndex::Entry> entries;
    entries.reserve(from.size());
    for (const FreeBlockIndex::Entry& e : from.entries()) {
      const Block& b = out.blocks[e.block()];
      entries.emplace_back(b.size, b.address.address, e.block());
    }
    FreeBlockIndex index;
    index.assign(std::move(entries));
    return index;
  };
  out.large_free = rebuild(after_.large_free);
  out.small_free = rebuild(after_.small_free);
  for (const State::Pool& p : after_.private_pools) {
    State::Pool q = p;
    q.large_free = rebuild(p.large_free);
    q.small_free = rebuild(p.small_free);
    out.private_pools.push_back(std::move(q));
  }
  const AllocatorStats& a = after_.stats;
  const AllocatorStats& b = before_.stats;
  AllocatorStats& o = out.stats;
  add(o.allocated, now.stats.allocated, b.allocated, a.allocated);
  add(o.reserved, now.stats.reserved, b.reserved, a.reserved);
  for (size_t c = 0; c < kCategoryCount; ++c) {
    add(o.allocated_by_category[c], now.stats.allocated_by_category[c], b.allocated_by_category[c],
        a.allocated_by_category[c]);
    add(o.reserved_by_category[c], now.stats.reserved_by_category[c], b.reserved_by_category[c],
        a.reserved_by_category[c]);
  }
  o.segments = now.stats.segments + (a.segments - b.segments);
  o.device_mallocs = now.stats.device_mallocs + (a.device_mallocs - b.device_mallocs);
  o.device_frees = now.stats.device_frees + (a.device_frees - b.device_frees);
  o.alloc_retries = now.stats.alloc_retries + (a.alloc_retries - b.alloc_retries);
  o.ooms = now.stats.ooms + (a.ooms - b.ooms);
  out.last_oom = now.last_oom;
  out.next_pool_id = after_.next_pool_id;
  return out;
}

}  // namespace gpumem
