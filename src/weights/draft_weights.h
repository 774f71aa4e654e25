// The tensors ONE rank allocates for an EAGLE-3 draft head, as SGLang v0.5.9 loads it, or
// for a NextN draft (the checkpoint's MTP layer, catalog/nextn_draft.h; its tensors are
// listed by rank_weights.h nextn_draft_tensors, its embedding and head kReleasedLater).
//
// The draft is a second model built in the target's process, after the target, with the
// same tensor parallelism (sglang v0.5.9 speculative/eagle_worker.py EAGLEWorker.__init__).
// Its own tensors, in order (llama_eagle3.py LlamaForCausalLMEagle3):
//   * embed_tokens (vocab-parallel), built and then freed when the worker installs the
//     target's embedding (set_embed), unless the draft's hidden size differs from the
//     target's, in which case it keeps its own;
//   * fc [hidden, 3 x target hidden], an unsharded torch.nn.Linear;
//   * the midlayer: a Llama decoder layer whose qkv_proj and MLP are first built for a
//     hidden-sized input and immediately replaced (qkv_proj for a 2 x hidden input, the MLP
//     again), so the first copies are freed; o_proj, the RoPE cache (unless the target's
//     has the same key), norms and hidden_norm;
//   * the final norm and lm_head of draft_vocab_size rows (vocab-parallel);
//   * after loading, the hot-token map d2t (+ arange) as int64 [draft_vocab] on the GPU
//     (t2d is not loaded).
// The draft's context length is the target's (the worker overrides it), so its RoPE cache
// covers max(draft max_position_embeddings, target context length) positions.
#ifndef GPUMEM_WEIGHTS_DRAFT_WEIGHTS_H_
#define GPUMEM_WEIGHTS_DRAFT_WEIGHTS_H_

#include <cstdint>
#include <vector>

#include "catalog/architecture.h"
#include "core/status.h"
#include "weights/parallel_layout.h"
#include "weights/weight_list_cache.h"
#include "weights/weight_rules.h"
#include "weights/weight_tensor.h"

namespace gpumem {

// Pure in its arguments: with a `cache`, equal arguments get the very same list back
// (weight_list_cache.h); without one it is built.
Result<WeightList> draft_weights(const Architecture& draft, const Architecture& target,
                                 std::int64_t target_context_len, const ParallelLayout& l,
                                 const WeightRules& rules, WeightListCache* cache = nullptr);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_DRAFT_WEIGHTS_H_
