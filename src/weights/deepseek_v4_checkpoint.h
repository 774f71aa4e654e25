// The tensors of a DeepSeek-V4 checkpoint as DeepSeek publishes it (DeepseekV4ForCausalLM):
// its own module names (embed, layers.N.attn.wq_a, layers.N.ffn.experts.E.w1, mtp.K...), not
// Hugging Face's.
//
// The linears of attention and the shared expert are FP8 (e4m3) with one power-of-two scale
// per 128 x 128 block stored as float8_e8m0fnu; the routed experts are MXFP4, two values per
// int8 and one e8m0 scale per 32 values; embed, head, norms, router and the compressors' and
// indexer's projections stay bfloat16; the hyper-connection mixers, attention sinks, the
// compressors' position biases (ape) and the router bias are float32, the hash layers' token
// to expert table (tid2eid) int64. Read from the per-tensor table of a downloaded Flash
// checkpoint (gogongxt/python scripts/models/deepseek_v4_flash.md at ec99626), which this list
// reproduces to the byte.
#ifndef GPUMEM_WEIGHTS_DEEPSEEK_V4_CHECKPOINT_H_
#define GPUMEM_WEIGHTS_DEEPSEEK_V4_CHECKPOINT_H_

#include <vector>

#include "catalog/architecture.h"
#include "core/status.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {

// The checkpoint's tensors (unsorted); an error for a quantization other than DeepSeek's block
// FP8, whose files gpumem has not read.
Result<std::vector<CheckpointTensor>> deepseek_v4_checkpoint_tensors(const Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_DEEPSEEK_V4_CHECKPOINT_H_
