// The Gated DeltaNet module of a hybrid model's linear-attention layer (Qwen3-Next) on one
// rank: projections, the causal convolution, the decay parameters and the gated norm.
//
// Appended in the order SGLang's Qwen3GatedDeltaNet creates them; every projection splits its
// output (or, for out_proj, its input) over the attention TP group, so the key and value heads
// must divide by it.
#ifndef GPUMEM_WEIGHTS_LINEAR_ATTENTION_WEIGHTS_H_
#define GPUMEM_WEIGHTS_LINEAR_ATTENTION_WEIGHTS_H_

#include <string>

#include "core/status.h"
#include "weights/tensor_list.h"

namespace gpumem {

// `prefix` is the engine's module ("model.layers.0.linear_attn"), also the checkpoint's.
Status add_gated_delta_net(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                           PostLoadSteps& post_load);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_LINEAR_ATTENTION_WEIGHTS_H_
