// A rank's weights as a real run measured them: one tensor of the pinned size.
//
// An engine logs what its weights hold once loaded (vLLM's "Model loading took X GiB",
// SGLang's "Load weight end ... mem usage=X GB"). When a scenario pins that figure, the
// measurement is the truth and the catalog model's tensor list only a stand-in for its
// shape: a quantized checkpoint replayed through its base model would otherwise allocate
// the base model's 16-bit tensors and run out of memory at the weights. Every later step
// reads the weights only through the memory they hold, so one resident tensor of the pinned
// size reproduces them (its allocator rounding is PyTorch's, as for any tensor).
#ifndef GPUMEM_WEIGHTS_PINNED_WEIGHTS_H_
#define GPUMEM_WEIGHTS_PINNED_WEIGHTS_H_

#include "core/units.h"
#include "weights/weight_tensor.h"

namespace gpumem {

// One resident uint8 tensor of `size` bytes (none for a size of 0).
WeightList pinned_weights(Bytes size);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_PINNED_WEIGHTS_H_
