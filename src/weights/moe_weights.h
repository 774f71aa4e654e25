// The tensors of one FusedMoE layer (all routed experts of a decoder layer) on one rank.
//
// A FusedMoE holds its experts as stacked tensors: w13 (gate and up, fused along the output
// rows) and w2 (down). Each rank holds `num_local_experts` experts (routed experts / EP, plus
// a fused shared expert where the engine folds it in), each sharded over the MoE TP group
// to `intermediate_per_rank` rows of w13's halves and columns of w2. The quantization of the
// checkpoint decides dtypes, packing and the scales that come with them.
#ifndef GPUMEM_WEIGHTS_MOE_WEIGHTS_H_
#define GPUMEM_WEIGHTS_MOE_WEIGHTS_H_

#include <cstdint>
#include <string>

#include "core/status.h"
#include "weights/tensor_list.h"

namespace gpumem {

struct MoeModule {
  std::string prefix;  // engine name, "model.layers.3.mlp.experts"
  std::int64_t num_local_experts = 0;
  std::int64_t intermediate_per_rank = 0;
  int moe_tp_size = 1;
  bool bias = false;  // experts carry gate_up/down biases (gpt-oss)
  // false: each expert has up and down only (NemotronH's relu2), so w13 holds one half.
  bool gated = true;
};

// Appends the experts' tensors in creation order and queues their post-load work.
Status add_fused_moe(TensorList& list, const BuildContext& ctx, const MoeModule& m,
                     PostLoadSteps& post_load);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_MOE_WEIGHTS_H_
