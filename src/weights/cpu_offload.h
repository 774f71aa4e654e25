// A rank's weights with `--cpu-offload-gb` of them moved to CPU memory as the model is built.
//
// vLLM (model_executor/models/utils.py make_layers with maybe_offload_to_cpu, later
// model_executor/offloader/uva.py UVAOffloader) builds each decoder layer of the rank's stage
// on the GPU and, right after, moves its parameters to pinned CPU memory one by one, in
// registration order, until the budget is spent: the check comes before each parameter, so
// the last one overshoots and a layer may stay partly on the GPU. Embeddings, the head, the
// final norm, vision towers and buffers (RoPE caches) are not candidates. The freed GPU
// storage goes back to PyTorch's caching allocator, where the next layer reuses it; the
// forward reads the moved parameters over UVA (a CUDA view of pinned memory), so they take no
// GPU memory later. SGLang (utils/offloader.py OffloaderV1, the same per-parameter rule) has
// no UVA: each forward of a layer copies its moved parameters back to the GPU, one tensor
// each, and drops them when the layer returns; `by_layer` lists those copies.
#ifndef GPUMEM_WEIGHTS_CPU_OFFLOAD_H_
#define GPUMEM_WEIGHTS_CPU_OFFLOAD_H_

#include <cstdint>
#include <vector>

#include "core/units.h"
#include "weights/weight_tensor.h"

namespace gpumem {

// The parameters of one decoder layer that moved to the CPU, in registration order.
struct OffloadedLayer {
  std::int64_t layer = 0;  // the model's layer index
  std::vector<Bytes> tensors;
  friend bool operator==(const OffloadedLayer&, const OffloadedLayer&) = default;
};

struct OffloadedWeights {
  WeightList weights;  // the offloaded tensors released right after their layer is built
  Bytes offloaded;     // what moved to the CPU (numel x element size)
  std::vector<OffloadedLayer> by_layer;  // ascending layer index
};

// `list` with the parameters of its decoder layers ("model.layers.N." or
// "backbone.layers.N.", in list order) moved to the CPU until `budget` bytes are.
OffloadedWeights offload_decoder_layers(const WeightList& list, Bytes budget);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_CPU_OFFLOAD_H_
