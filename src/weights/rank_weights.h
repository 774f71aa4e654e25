// The parameters and model buffers ONE rank allocates when SGLang v0.5.9 builds a model.
//
// The list is in allocation order: construction order of the modules (embedding on the
// first pipeline stage, this stage's decoder layers, final norm and lm_head on the last),
// then the post-load work of the model (MLA's absorbed w_kc/w_vc copies) and of the
// quantization methods (Marlin repacks, ModelOpt scale requantization), module by module.
// Buffers created with the model and counted in "Load weight end ... mem usage" (the RoPE
// cos_sin_cache) are included where the engine creates them.
//
// Engine conventions come from `WeightRules`; the layout must be valid (validate_layout)
// and fit the model (heads, widths, vocabulary and experts divisible as the engine asserts):
// anything else is an error whose message reads like the engine's. EAGLE-3 draft heads are
// built by `draft_weights` (draft_weights.h), not here.
//
// Sources. Comments cite the SGLang v0.5.9 path and function of each rule. The v0.5.9 tag
// itself was not available to read; the rules were read in stored sgl-project/sglang copies
// and checked to be the same across the copies found: models/llama.py (0023954, bf7a0e2),
// deepseek_v2.py (00114ae; post_load_weights identical in later copies), qwen3_moe.py
// (008af3a), glm4_moe.py (005ffc6), gpt_oss.py (009c680), gemma3_causal.py (038c87d and an
// older copy, which differ: see rank_weights.cc), llama_eagle3.py (03d5a77),
// layers/vocab_parallel_embedding.py (04d5e39), layers/moe/fused_moe_triton/layer.py
// (008d7d0), layers/rotary_embedding/{factory,base,yarn}.py (108c36c, 0099dee, 0b1fd02),
// compressed_tensors_wNa16_moe.py (02a5808), configs/model_config.py (001adf5), and copies
// of quantization/mxfp4.py, distributed/utils.py get_pp_indices and
// speculative/eagle_worker.py. mixtral.py was only found in an early-2024 copy.
#ifndef GPUMEM_WEIGHTS_RANK_WEIGHTS_H_
#define GPUMEM_WEIGHTS_RANK_WEIGHTS_H_

#include <vector>

#include "catalog/architecture.h"
#include "core/status.h"
#include "weights/parallel_layout.h"
#include "weights/rope_cache.h"
#include "weights/weight_list_cache.h"
#include "weights/weight_rules.h"
#include "weights/weight_tensor.h"

namespace gpumem {

// One rank's tensors in allocation order. Pure in its arguments: with a `cache`, equal
// arguments get the very same list back (weight_list_cache.h); without one it is built.
Result<WeightList> rank_weights(const Architecture& a, const ParallelLayout& l,
                                const WeightRules& rules, WeightListCache* cache = nullptr);

// The tensors of an MTP draft on one rank (draft.is_nextn_draft()), in allocation order:
// SGLang's and vLLM's NextN layer of DeepSeek and GLM, or vLLM's MTP block of a Qwen hybrid
// (qwen_mtp_draft.h); `target_rope` is the RoPE cache the target registered. draft_weights
// (draft_weights.h) is the way in.
Result<std::vector<WeightTensor>> nextn_draft_tensors(const Architecture& draft,
                                                      const RopeSpec& target_rope,
                                                      const ParallelLayout& l,
                                                      const WeightRules& rules);

// Whether the engine folds the shared expert into the routed FusedMoE for this model and
// layout (sglang v0.5.9 deepseek_v2.py determine_num_fused_shared_experts).
bool fuses_shared_experts(const Architecture& a, const ParallelLayout& l, const WeightRules& rules);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_RANK_WEIGHTS_H_
