#include "sim/capture_memo.h"

#include <utility>

namespace gpumem {

// One replayed body: its key, the constants it ran under, what it did to the allocator, the
// device states it began and ended in (the end's peak counted from the start's use), and its
// readings.
struct MemoizedCapture {
  std::unique_ptr<RunKey> key;
  AllocatorConfig config;
  DeviceConstants constants;
  AllocatorStateDelta::Visibility visibility;
  AllocatorStateDelta allocator;
  SimDevice::State device_before;
  SimDevice::State device_after;
  FreeReadings readings;
};

namespace {

// The most entries kept (each holds two allocator and two device states, about 64 KB for an
// 8B model): a fraction sweep of one GPU meets a new start state at each size of the KV
// tensors' remainders that its warm-ups can take, so more entries buy few hits.
constexpr size_t kCapacity = 256;

// Whether the device state `now` answers the body as `before` did, but for the memory in
// use (and so the peak), the allocations' sizes and addresses and the next address; and has
// room for the body's largest rise.
bool device_matches(const SimDevice::State& before, const SimDevice::State& after,
                    const SimDevice::State& now) {
  const Bytes rise = after.peak - before.used;
  return now.total - now.used >= rise && now.total == before.total &&
         now.context_size == before.context_size && now.context_created == before.context_created &&
         now.allocations.size() == before.allocations.size() &&
         now.ipc_mappings == before.ipc_mappings && now.small_page_left == before.small_page_left &&
         now.graph_exec_used == before.graph_exec_used &&
         now.graph_exec_reserved == before.graph_exec_reserved &&
         now.capturing == before.capturing && now.captured_before == before.captured_before &&
         now.launched_before == before.launched_before &&
         now.nodes_in_capture == before.nodes_in_capture && now.graphs == before.graphs &&
         now.libraries_loaded == before.libraries_loaded &&
         now.pytorch_resources == before.pytorch_resources &&
         now.last_failure == before.last_failure;
}

// The device state the body ends in from `now`.
SimDevice::State device_end(const SimDevice::State& before, const SimDevice::State& after,
                            const SimDevice::State& now) {
  SimDevice::State out = after;
  out.used = now.used + (after.used - before.used);
  out.peak = std::max(now.peak, now.used + (after.peak - before.used));
  for (size_t c = 0; c < kCategoryCount; ++c) {
    out.by_category[c] = now.by_category[c] + (after.by_category[c] - before.by_category[c]);
  }
  out.allocations = now.allocations;
  for (size_t i = before.allocations.size(); i < after.allocations.size(); ++i) {
    SimDevice::Allocation a = after.allocations[i];
    a.address = a.address - before.next_address + now.next_address;
    out.allocations.push_back(a);
  }
  out.next_address = now.next_address + (after.next_address - before.next_address);
  return out;
}

}  // namespace

std::vector<std::shared_ptr<const MemoizedCapture>> CaptureMemo::candidates(
    const RunKey& key, const CachingAllocator::State& now) {
  std::vector<AllocatorStateDelta::Visibility> visibilities;
  {
    std::lock_guard lock(mu_);
    for (const Group& g : groups_) {
      if (g.key->equals(key)) visibilities.push_back(g.visibility);
    }
  }
  std::vector<std::shared_ptr<const MemoizedCapture>> out;
  for (const AllocatorStateDelta::Visibility& v : visibilities) {
    const std::uint64_t hash = AllocatorStateDelta::canonical_hash(now, v);
    std::lock_guard lock(mu_);
    for (const Group& g : groups_) {
      if (!(g.visibility == v) || !g.key->equals(key)) continue;
      auto [first, last] = g.by_hash.equal_range(hash);
      for (auto it = first; it != last; ++it) out.push_back(it->second);
    }
  }
  return out;
}

void CaptureMemo::store(std::shared_ptr<const MemoizedCapture> entry) {
  std::lock_guard lock(mu_);
  if (order_.size() == kCapacity) {
    const std::shared_ptr<const MemoizedCapture> oldest = std::move(order_.front());
    order_.pop_front();
    for (Group& g : groups_) {
      auto [first, last] = g.by_hash.equal_range(oldest->allocator.hash());
      for (auto it = first; it != last; ++it) {
        if (it->second == oldest) {
          g.by_hash.erase(it);
          break;
        }
      }
    }
  }
  Group* group = nullptr;
  for (Group& g : groups_) {
    if (g.visibility == entry->visibility && g.key->equals(*entry->key)) group = &g;
  }
  if (group == nullptr) {
    groups_.push_back(Group{entry->key->clone(), entry->visibility, {}});
    group = &groups_.back();
  }
  group->by_hash.emplace(entry->allocator.hash(), entry);
  order_.push_back(std::move(entry));
}

Status SimMemoizedRuns::run(const RunKey& key, const MemoizedBody& body, FreeReadings& readings) {
  std::optional<CachingAllocator::State> now =
      memo_ != nullptr && single_rank_ ? allocator_.snapshot_with_pools() : std::nullopt;
  if (!now) return body(readings);
  const SimDevice::State& device_now = device_.state();
  for (const std::shared_ptr<const MemoizedCapture>& e : memo_->candidates(key, *now)) {
    if (!(e->config == allocator_.config()) || !(e->constants == device_.constants()) ||
        !device_matches(e->device_before, e->device_after, device_now) ||
        !e->allocator.matches(*now)) {
      continue;
    }
    allocator_.restore(e->allocator.apply(*now, device_now.next_address));
    const Bytes free_then = e->device_before.total - e->device_before.used;
    const Bytes free_now = device_now.total - device_now.used;
    for (Bytes r : e->readings) readings.push_back(r + (free_now - free_then));
    device_.restore(device_end(e->device_before, e->device_after, device_now));
    memo_->count(true);
    return {};
  }
  memo_->count(false);
  return replay(key, body, readings, *now);
}

Status SimMemoizedRuns::replay(const RunKey& key, const MemoizedBody& body, FreeReadings& readings,
                               const CachingAllocator::State& before) {
  SimDevice::State device_before = device_.state();
  // Peaks counted from the start, so that the entry holds the body's own rises.
  allocator_.reset_peak_stats();
  device_.reset_peak();
  CachingAllocator::RequestWatch watch;
  allocator_.set_request_watch(&watch);
  const Status s = body(readings);
  allocator_.set_request_watch(nullptr);
  std::optional<CachingAllocator::State> after = allocator_.snapshot_with_pools();
  SimDevice::State device_after = device_.state();
  allocator_.raise_peaks(before.stats);
  device_.raise_peak(device_before.peak);
  if (!s.ok() || !after) return s;
  // A charge that did not fit (even one recovered by releasing cached blocks) would fit
  // with more free memory: such a replay answers for no other state.
  const AllocatorStats& b = before.stats;
  const AllocatorStats& a = after->stats;
  if (a.alloc_retries != b.alloc_retries || a.device_frees != b.device_frees || a.ooms != b.ooms ||
      !(device_after.last_failure == device_before.last_failure) ||
      !(device_after.ipc_mappings == device_before.ipc_mappings) ||
      device_after.allocations.size() < device_before.allocations.size() ||
      !std::equal(device_before.allocations.begin(), device_before.allocations.end(),
                  device_after.allocations.begin())) {
    return s;
  }
  const AllocatorStateDelta::Visibility visibility{watch.smallest_small, watch.smallest_large};
  std::optional<AllocatorStateDelta> delta =
      AllocatorStateDelta::make(before, *after, device_before.next_address, visibility);
  if (!delta) return s;
  memo_->store(std::make_shared<const MemoizedCapture>(MemoizedCapture{
      key.clone(), allocator_.config(), device_.constants(), visibility, std::move(*delta),
      std::move(device_before), std::move(device_after), readings}));
  return s;
}

}  // namespace gpumem
