// Loading a rank's weights: the tensor list of weights/ replayed through PyTorch's caching
// allocator in its order, each transient tensor (a quantization scratch, a pre-shuffle
// copy) freed right after the allocation its `released_after` names — so the allocator's
// segments, and the peak, come out as the engine's own loading leaves them.
#ifndef GPUMEM_RUNTIME_WEIGHT_LOADING_H_
#define GPUMEM_RUNTIME_WEIGHT_LOADING_H_

#include <span>
#include <vector>

#include "alloc/caching_allocator.h"
#include "core/status.h"
#include "weights/weight_tensor.h"

namespace gpumem {

// Appends to `released_later` the blocks of the tensors marked kReleasedLater, in list
// order, for the step that frees them.
Status load_weight_tensors(CachingAllocator& allocator, std::span<const WeightTensor> tensors,
                           std::vector<BlockHandle>& released_later);

// How a rank's start-up loads a weight list: the probe replays every load on its GPU; the
// simulator may answer a load it has already replayed (sim/weight_load_memo.h).
class WeightLoads {
 public:
  virtual ~WeightLoads() = default;
  virtual Status load(CachingAllocator& allocator, const WeightList& list,
                      std::vector<BlockHandle>& released_later) = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_RUNTIME_WEIGHT_LOADING_H_
