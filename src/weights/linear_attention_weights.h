// The linear-attention modules of hybrid models on one rank: Qwen3-Next's Gated DeltaNet,
// NemotronH's Mamba-2 mixer, Jamba's Mamba-1 mixer and Kimi Linear's Kimi Delta Attention
// (projections, the causal convolution, the decay parameters and the norms).
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

// The Mamba-2 mixer of a NemotronH layer (sglang layers/attention/mamba/mamba.py MambaMixer2):
// conv1d (with its bias), in_proj (z, x, B, C, dt), dt_bias, float32 A, D, the gated norm and
// out_proj. A single group is copied to every rank; more groups must split over TP.
Status add_mamba2_mixer(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                        PostLoadSteps& post_load);

// The Mamba-1 mixer of a Jamba layer (vllm layers/mamba/mamba_mixer.py MambaMixer, in its
// creation order): conv1d (with its bias), in_proj (x and z), x_proj (dt, B and C; row-parallel),
// dt_proj with its bias, float32 A and D per channel, out_proj, and the dt/B/C RMSNorms.
Status add_mamba1_mixer(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                        PostLoadSteps& post_load);

// Kimi Linear's Kimi Delta Attention (vllm layers/kda.py KimiDeltaAttention.__init__, in its
// creation order): q/k/v_proj, the replicated f_a_proj, f_b_proj, dt_bias (float32), b_proj,
// q/k/v_conv1d (unquantized float32 [channels / tp, 1, kernel]), A_log (float32
// [1, 1, heads / tp, 1]), g_a_proj, g_b_proj, o_norm and o_proj. SGLang fuses q, k, v, b, f_a
// and g_a into one projection and the two b projections into a batched one when unquantized:
// the same bytes in fewer tensors.
Status add_kimi_delta_attention(TensorList& list, const BuildContext& ctx,
                                const std::string& prefix, PostLoadSteps& post_load);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_LINEAR_ATTENTION_WEIGHTS_H_
