// vLLM's KV cache for DeepSeek-V4 (DeepseekV4ForCausalLM), from v0.20.0: which caches each
// layer keeps, how vLLM groups them, and the one pool of block ids the groups share.
//
// Every layer keeps a sliding-window cache of its last tokens (64-token blocks); a layer of
// compress ratio 4 adds a compressed cache, an indexer key cache and two compressor-state
// caches, a layer of ratio 128 a compressed cache and one state cache. A stored latent token
// is 584 bytes (448 fp8 values, 64 bfloat16 RoPE values, 7 scales, a pad byte), and every
// page is padded to a multiple of 576 bytes. The compressed and indexer caches form one group
// of 256-token blocks (the full-MLA pages); the window and state caches form groups by block
// size and window, each page raised to the nearest full-MLA page size; groups are cut into
// "layer tuples" (_approximate_gcd of their layer counts), and a block id spans the tuples x
// the full-MLA page sizes, empty slots included, whichever group holds it.
//
// Sources: vllm v1/core/kv_cache_utils.py (group_and_unify_kv_cache_specs,
// _get_kv_cache_groups_uniform_groups, _get_kv_cache_config_deepseek_v4) and
// kv_cache_interface.py as PR #40860 shipped them (read in the PR author's tree, zyongye/vllm
// at 434b1bdb, and vllm deepseek_v4_attention.py / deepseek_compressor.py at 0a291a2e /
// 0de10a27). A real start-up of that layout, 2 GH200 at max_model_len 30,000 (vllm issue
// #44376), needs 6.66 GiB for one request as this model derives. v0.23.0 (PR #44454) counts
// only occupied slots, which is not modelled: plan_checks.h refuses DeepSeek-V4 from v0.23.0.
#ifndef GPUMEM_ENGINE_VLLM_DEEPSEEK_V4_KV_H_
#define GPUMEM_ENGINE_VLLM_DEEPSEEK_V4_KV_H_

#include "catalog/architecture.h"
#include "core/status.h"
#include "engine/vllm/kv_sizing.h"
#include "weights/parallel_layout.h"

namespace gpumem::vllm {

// The KV layout of the decoder layers in `layers` on one rank (the same on every TP rank:
// each cache is one latent "head"). A stage without a compressed layer is an error: vLLM's
// grouping keys every page on the full-MLA ones.
Result<KvCacheLayout> deepseek_v4_kv_layout(const Architecture& a, LayerRange layers);

// Bytes of one stored latent token in the fp8_ds_mla cache: the fp8 no-RoPE values, the
// bfloat16 RoPE values, one scale per 64 values and a pad byte.
std::int64_t deepseek_v4_token_bytes(const Architecture& a);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_DEEPSEEK_V4_KV_H_
