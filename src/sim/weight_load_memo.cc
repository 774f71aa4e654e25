#include "sim/weight_load_memo.h"

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace gpumem {

// One replayed load: what it started from and what it ended in.
struct WeightLoad {
  WeightList list;  // held, so its address cannot name another list while the entry lives
  AllocatorConfig config;
  DeviceConstants constants;
  CachingAllocator::State allocator_before;
  SimDevice::State device_before;
  CachingAllocator::State allocator_after;
  SimDevice::State device_after;
  std::vector<BlockHandle> released_later;  // equal in every load from equal states
};

std::shared_ptr<const WeightLoad> WeightLoadMemo::find(const WeightList& list) {
  std::lock_guard lock(mu_);
  for (const std::shared_ptr<const WeightLoad>& l : loads_) {
    if (l && l->list == list) return l;
  }
  return nullptr;
}

void WeightLoadMemo::store(std::shared_ptr<const WeightLoad> load) {
  std::lock_guard lock(mu_);
  for (std::shared_ptr<const WeightLoad>& l : loads_) {
    if (l && l->list == load->list) {
      l = std::move(load);
      return;
    }
  }
  loads_[next_] = std::move(load);
  next_ = (next_ + 1) % loads_.size();
}

Status SimWeightLoads::load(CachingAllocator& allocator, const WeightList& list,
                            std::vector<BlockHandle>& released_later) {
  std::optional<CachingAllocator::State> before = allocator.snapshot();
  if (!list || !before || memo_ == nullptr) {
    return load_weight_tensors(allocator, tensors_of(list), released_later);
  }
  const std::shared_ptr<const WeightLoad> seen = memo_->find(list);
  if (seen && seen->allocator_before == *before && seen->device_before == device_.state() &&
      seen->config == allocator.config() && seen->constants == device_.constants()) {
    allocator.restore(seen->allocator_after);
    device_.restore(seen->device_after);
    released_later.insert(released_later.end(), seen->released_later.begin(),
                          seen->released_later.end());
    ++restored_;
    return {};
  }
  SimDevice::State device_before = device_.state();
  std::vector<BlockHandle> kept;
  GPUMEM_RETURN_IF_ERROR(load_weight_tensors(allocator, tensors_of(list), kept));
  released_later.insert(released_later.end(), kept.begin(), kept.end());
  std::optional<CachingAllocator::State> after = allocator.snapshot();
  if (!after) return {};
  memo_->store(std::make_shared<const WeightLoad>(
      WeightLoad{list, allocator.config(), device_.constants(), std::move(*before),
                 std::move(device_before), std::move(*after), device_.state(), std::move(kept)}));
  return {};
}

}  // namespace gpumem
