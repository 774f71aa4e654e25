#include "engine/weight_loading.h"

namespace gpumem {

Status load_weight_tensors(CachingAllocator& allocator, const std::vector<WeightTensor>& tensors) {
  std::vector<std::vector<size_t>> releases(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].released_after != kResident) {
      releases[static_cast<size_t>(tensors[i].released_after)].push_back(i);
    }
  }
  std::vector<BlockHandle> handles(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    Result<BlockHandle> h = allocator.allocate(tensors[i].bytes, Category::kWeights);
    if (!h.ok()) return h.status();
    handles[i] = *h;
    for (size_t r : releases[i]) GPUMEM_RETURN_IF_ERROR(allocator.free(handles[r]));
  }
  return {};
}

}  // namespace gpumem
