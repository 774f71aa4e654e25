#include "runtime/weight_loading.h"

#include <algorithm>
#include <utility>

namespace gpumem {

Status load_weight_tensors(CachingAllocator& allocator, std::span<const WeightTensor> tensors,
                           std::vector<BlockHandle>& released_later) {
  // (allocation after which it is freed, transient tensor), in the order of the frees.
  std::vector<std::pair<size_t, size_t>> releases;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].released_after >= 0) {
      releases.emplace_back(static_cast<size_t>(tensors[i].released_after), i);
    }
  }
  std::stable_sort(releases.begin(), releases.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<BlockHandle> handles(tensors.size());
  auto next_release = releases.begin();
  for (size_t i = 0; i < tensors.size(); ++i) {
    Result<BlockHandle> h = allocator.allocate(tensors[i].bytes, Category::kWeights);
    if (!h.ok()) return h.status();
    handles[i] = *h;
    for (; next_release != releases.end() && next_release->first == i; ++next_release) {
      GPUMEM_RETURN_IF_ERROR(allocator.free(handles[next_release->second]));
    }
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].released_after == kReleasedLater) released_later.push_back(handles[i]);
  }
  return {};
}

}  // namespace gpumem
