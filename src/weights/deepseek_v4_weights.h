// The parameters and buffers one rank allocates when vLLM builds DeepSeek-V4
// (models/deepseek_v4.py, from v0.20.0), in construction order.
//
// Per decoder layer: attention (the fused wq_a + wkv, replicated; wq_b, wo_a and wo_b split
// over TP; q and kv norms; a float32 attention sink padded to 64 or 128 heads), the ratio-4 and
// ratio-128 compressors (bfloat16, replicated, float32 position biases) and the ratio-4 layers'
// indexer (wq_b replicated in FP8, weights_proj in bfloat16, a LayerNorm over its keys), the
// hyper-connection mixers (float32), the router (bfloat16, with an int32 token-to-expert table
// on the hash-routed layers and a float32 bias elsewhere), the shared expert (FP8, TP) and the
// MXFP4 routed experts (experts split over EP, their width over the MoE TP group). The model
// adds embed and head (vocabulary-parallel), the final norm and head mixer, and one float32
// RoPE cache per RoPE base (DeepseekV4ScalingRotaryEmbedding: the window-only layers' and the
// compressed layers'). Only vLLM's layout is built: SGLang's DeepSeek-V4 is refused by the
// engine before it comes here.
#ifndef GPUMEM_WEIGHTS_DEEPSEEK_V4_WEIGHTS_H_
#define GPUMEM_WEIGHTS_DEEPSEEK_V4_WEIGHTS_H_

#include <vector>

#include "catalog/architecture.h"
#include "core/status.h"
#include "weights/parallel_layout.h"
#include "weights/weight_rules.h"
#include "weights/weight_tensor.h"

namespace gpumem {

Result<std::vector<WeightTensor>> deepseek_v4_rank_tensors(const Architecture& a,
                                                           const ParallelLayout& l,
                                                           const WeightRules& rules);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_DEEPSEEK_V4_WEIGHTS_H_
