// Loading a rank's weights: the tensor list of weights/ replayed through PyTorch's caching
// allocator in its order, each transient tensor (a quantization scratch, a pre-shuffle
// copy) freed right after the allocation its `released_after` names — so the allocator's
// segments, and the peak, come out as the engine's own loading leaves them.
#ifndef GPUMEM_ENGINE_WEIGHT_LOADING_H_
#define GPUMEM_ENGINE_WEIGHT_LOADING_H_

#include <span>

#include "alloc/caching_allocator.h"
#include "core/status.h"
#include "weights/weight_tensor.h"

namespace gpumem {

Status load_weight_tensors(CachingAllocator& allocator, std::span<const WeightTensor> tensors);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_WEIGHT_LOADING_H_
