// vLLM's KV-cache sizing, reproduced exactly: the budget of --gpu-memory-utilization, the
// memory left for the KV cache after profiling, the page size of every attention layer,
// the grouping of layers into KV-cache groups, the block count, and the numbers vLLM logs
// (tokens, maximum concurrency) and checks (one request of max_model_len must fit).
//
// These are pure functions: the measured quantities (total memory, weights, activation
// peak, non-torch increase, CUDA-graph estimate) come in already measured, simulated or
// pinned, so a test can pin them and compare with vLLM to the token. Sizes are bytes; a
// "page" is one layer's bytes for one block of block_size tokens
// (vllm v1/kv_cache_interface.py page_size_bytes).
#ifndef GPUMEM_ENGINE_VLLM_KV_SIZING_H_
#define GPUMEM_ENGINE_VLLM_KV_SIZING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/units.h"
#include "engine/vllm/version.h"

namespace gpumem::vllm {

// kMamba: a Gated DeltaNet layer's state page (vllm v1/kv_cache_interface.py MambaSpec).
enum class KvLayerKind { kFull, kSlidingWindow, kMla, kMamba };

// One attention layer's cache spec (vllm v1/kv_cache_interface.py FullAttentionSpec,
// SlidingWindowSpec, MLAAttentionSpec).
struct KvLayerSpec {
  KvLayerKind kind = KvLayerKind::kFull;
  std::int64_t block_size = 16;
  std::int64_t num_kv_heads = 1;  // per rank: max(1, total // tp); MLA: 1
  std::int64_t head_size = 0;     // MLA: kv_lora_rank + qk_rope_head_dim
  std::int64_t head_size_v = 0;   // full and sliding window; MLA stores no separate V
  std::int64_t dtype_bytes = 2;
  std::int64_t sliding_window = 0;
  // kMamba: the state page padded to the attention page (page_size_padded), and the pages one
  // request holds (max_memory_usage_bytes: 1 without prefix caching, 2 in "align" mode).
  std::int64_t mamba_page_bytes = 0;
  std::int64_t mamba_pages_per_request = 1;
  friend bool operator==(const KvLayerSpec&, const KvLayerSpec&) = default;
};

// page_size_bytes: block_size x heads x (head + head_v) x dtype; MLA block x head x dtype;
// Mamba the padded state page.
Bytes page_size(const KvLayerSpec& s);

// max_memory_usage_bytes of one layer for one request of `max_model_len` tokens: full
// attention and MLA cdiv(len, block) pages; sliding window W
// cdiv(min(W - 1 + max_num_batched_tokens, len), block) + 1 pages; Mamba its pages per request.
Bytes max_memory_per_request(const KvLayerSpec& s, std::int64_t max_model_len,
                             std::int64_t max_num_batched_tokens);

// The KV-cache groups of one worker (vllm v1/core/kv_cache_utils.py get_kv_cache_groups):
// every group has `group_size` layer slots (some padding), all groups share one page size,
// and the worker allocates `group_size` tensors of page x num_blocks, tensor i serving slot
// i of every group.
struct KvGroup {
  KvLayerSpec spec;         // page-size unified
  std::vector<int> layers;  // indices into the worker's layer list
  // DeepSeek-V4's packed layout (KvCacheLayout::block_bytes set): the group's bytes in one
  // block id, its layers' pages (each padded to a full-MLA page size) summed.
  Bytes packed_page;
};
// Padding slots added to the groups of one layer kind, and that kind's layer count
// ("Add %d padding layers, may waste at most %.2f%% KV cache memory").
struct KvPadding {
  std::int64_t added = 0;
  std::int64_t layers = 0;
};
struct KvCacheLayout {
  std::vector<KvGroup> groups;
  std::int64_t group_size = 0;
  std::vector<KvPadding> paddings;
  Bytes page;
  std::int64_t min_block_size = 0;  // smallest block size over the groups
  // The page of each KV tensor the worker allocates (page x num_blocks bytes each): group_size
  // tensors of `page`, or, for one group of layers of one type with unequal pages, each
  // layer's own page.
  std::vector<Bytes> tensor_pages;
  // DeepSeek-V4 (deepseek_v4_kv.h): every group draws its blocks from one pool of block ids,
  // each of `block_bytes` across all tensors; zero for every other model.
  Bytes block_bytes;
};

// One group when every layer's spec is equal. From v0.11.0 (`uniform_type_groups`), full
// attention and MLA layers of one block size whose pages differ (DeepSeek Sparse Attention's
// latent and indexer caches) are one group too (UniformTypeKVCacheSpecs, PR #25101): a
// block spans every layer's page, so the group's page is their sum and its group_size 1.
// Otherwise (full attention with sliding window) page sizes are unified by scaling the
// smaller block sizes by the integer ratio and each kind is split into cdiv(n, G) groups,
// G = min layers per kind, or the maximum when it is below 1.5 x the minimum
// (_get_kv_cache_groups_uniform_page_size).
Result<KvCacheLayout> group_kv_layers(const std::vector<KvLayerSpec>& layers,
                                      bool uniform_type_groups);

// vllm v1/worker/utils.py request_memory: ceil(total x util) from PR #30868, before the
// float product (truncated where vLLM truncates: int(available) at the end).
double requested_memory(Bytes total, double gpu_memory_utilization, const VersionRules& rules);

// "Free memory on device ... on startup is less than desired GPU memory utilization ...",
// or "" when `free` covers the request.
std::string budget_error(Bytes free, Bytes total, double gpu_memory_utilization, int local_rank,
                         const VersionRules& rules);

// What the profile measured, and the result (vllm v1/worker/gpu_worker.py
// determine_available_memory).
struct ProfileResult {
  Bytes weights;              // model_memory_usage
  Bytes torch_peak_increase;  // activation peak of profile_run
  Bytes non_torch_increase;
  Bytes cudagraph_estimate;  // applied estimate (0 when off)
};
// int(requested - (non_torch + peak + weights) - estimate).
Bytes available_kv_cache_memory(double requested, const ProfileResult& p);

// check_enough_kv_cache_memory passes: some memory for the cache blocks, and at least what
// one request of max_model_len needs (`needed`; 0 when not known).
bool kv_cache_memory_suffices(Bytes available, Bytes needed);

// The smallest --gpu-memory-utilization, a multiple of 0.01 up to 1.0, whose budget
// (requested_memory) leaves the KV cache memory that suffices (kv_cache_memory_suffices for
// `needed`) after the non-KV memory of `p` (available_kv_cache_memory); nullopt when even 1.0
// leaves too little.
std::optional<double> smallest_gpu_memory_utilization(Bytes total, const ProfileResult& p,
                                                      Bytes needed, const VersionRules& rules);

// The longest max_model_len, a multiple of `block_size`, whose one request fits `available`
// when one of `max_model_len` tokens needs `needed`: a full-attention (or MLA) layer's need
// grows with cdiv(len, block_size) pages (FullAttentionSpec.max_memory_usage_bytes), so the
// bytes of one block follow from `needed`; a sliding-window layer needs about the same at any
// length, so with such layers the length is an upper bound. 0 when not even one block fits.
std::int64_t max_model_len_within(Bytes available, Bytes needed, std::int64_t max_model_len,
                                  std::int64_t block_size);

// Blocks one request of `max_model_len` takes in a layer of spec `s`:
// max_memory_per_request over page_size.
std::int64_t blocks_per_request(const KvLayerSpec& s, std::int64_t max_model_len,
                                std::int64_t max_num_batched_tokens);

// get_num_blocks: int(available // page // group_size); DeepSeek-V4's packed layout
// available // block_bytes.
std::int64_t num_blocks(Bytes available, const KvCacheLayout& layout);

// Bytes one request of max_model_len needs: G x page x sum over groups of
// cdiv(max_memory_per_request, page) (_max_memory_usage_bytes_from_groups); for the packed
// layout, block_bytes x the blocks of every group.
Bytes max_memory_per_request(const KvCacheLayout& layout, std::int64_t max_model_len,
                             std::int64_t max_num_batched_tokens);

// get_max_concurrency_for_kv_cache_config: num_blocks / blocks one request needs (packed:
// every group's blocks x its packed page, over the first group's packed page).
double max_concurrency(std::int64_t num_blocks, const KvCacheLayout& layout,
                       std::int64_t max_model_len, std::int64_t max_num_batched_tokens);

// The "GPU KV cache size: N tokens" figure: int(concurrency x max_model_len) from PR
// #41069, before num_blocks // len(groups) x min_block_size.
std::int64_t logged_token_count(std::int64_t num_blocks, const KvCacheLayout& layout,
                                std::int64_t max_model_len, std::int64_t max_num_batched_tokens,
                                const VersionRules& rules);

// kv_cache_utils.py estimate_max_model_len: the longest request, at most `max_model_len`
// tokens, whose KV cache fits `available` (binary search); 0 when not even one token's does.
std::int64_t estimate_max_model_len(Bytes available, const KvCacheLayout& layout,
                                    std::int64_t max_model_len,
                                    std::int64_t max_num_batched_tokens);

// check_enough_kv_cache_memory: "" when one request fits, else vLLM's error (with the
// estimated maximum model length found by binary search, as vLLM does).
std::string not_enough_kv_cache_error(Bytes available, const KvCacheLayout& layout,
                                      std::int64_t max_model_len,
                                      std::int64_t max_num_batched_tokens,
                                      const VersionRules& rules);
// "No available memory for the cache blocks. ..."
std::string no_available_memory_error();
// "max_num_seqs (S) exceeds available Mamba cache blocks (B). ..." (VersionRules::
// mamba_blocks_bound_max_num_seqs).
std::string mamba_blocks_below_max_num_seqs_error(std::int64_t max_num_seqs, std::int64_t blocks);

// vllm utils/mem_utils.py format_gib: round(b / 2^30, 2), printed with %s (Python repr).
std::string format_gib(Bytes b);
std::string format_gib(double b);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_KV_SIZING_H_
