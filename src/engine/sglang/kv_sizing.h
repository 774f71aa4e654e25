// SGLang's KV-cache sizing, reproduced exactly: bytes per token (`cell_size`), the profile
// `rest = A − F·(1 − mfs)` in float GiB, the token count, and the clamps that follow.
//
// These are pure functions: F and A come in already measured (simulated or pinned), so a
// test can pin them and compare with SGLang to the token. All arithmetic that SGLang does
// in Python floats is done in doubles, in the same order; integer steps use Python's floor
// division.
#ifndef GPUMEM_ENGINE_SGLANG_KV_SIZING_H_
#define GPUMEM_ENGINE_SGLANG_KV_SIZING_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/units.h"

namespace gpumem::sglang {

// The KV layout of one rank, as SGLang's ModelConfig describes it.
struct KvGeometry {
  bool mla = false;
  std::int64_t layers = 0;    // num_effective_layers of this PP stage
  std::int64_t kv_heads = 0;  // get_num_kv_heads(attn_tp): max(1, total // attn_tp)
  std::int64_t head_dim = 0;
  std::int64_t v_head_dim = 0;
  std::int64_t kv_lora_rank = 0;      // MLA
  std::int64_t qk_rope_head_dim = 0;  // MLA
  // DeepSeek DSA: each layer's indexer key bytes per token (0 without an indexer), and
  // whether the FP8 latent is stored in the 656-byte layout (model_facts.h).
  std::int64_t index_key_bytes = 0;
  bool fp8_latent_layout = false;
  // From v0.5.18 (pool_configurator.py) the budget counts the latent as stored; before, at
  // 576 x the element size whatever the layout.
  bool cell_counts_stored_latent = false;
  // Hybrid sliding-window models (gpt-oss, Gemma 3): layers split into full and SWA.
  bool hybrid_swa = false;
  std::int64_t full_layers = 0;
  std::int64_t swa_layers = 0;
  std::int64_t swa_kv_heads = 0;
  std::int64_t swa_head_dim = 0;
  std::int64_t swa_v_head_dim = 0;
  std::int64_t kv_element_size = 2;  // torch element size of the KV dtype (fp4 x2: 1)
  bool fp4 = false;                  // float4_e2m1fn_x2: halves plus block scales
};

// sglang v0.5.9 model_runner_kv_cache_mixin.py get_cell_size_per_token.
std::int64_t cell_size(const KvGeometry& g);

// Bytes one MLA layer's latent buffer keeps per row (memory_pool.py MLATokenToKVPool:
// kv_cache_dim x element size; 656 in DeepSeek's FP8 layout).
std::int64_t mla_row_bytes(const KvGeometry& g);
// Bytes of one layer's indexer key buffer for a pool of `tokens` (memory_pool.py
// NSATokenToKVPool.__init__: (tokens + page + 1) // page pages of page x key bytes).
std::int64_t index_buffer_bytes(const KvGeometry& g, std::int64_t tokens, std::int64_t page_size);

// Python's a // b for integers (floors toward negative infinity).
std::int64_t floor_div(std::int64_t a, std::int64_t b);

// sglang v0.5.9 model_runner_kv_cache_mixin.py profile_max_num_token:
// int((A − F·(1 − mfs))·2^30) // cell. May be zero or negative.
std::int64_t profile_max_num_token(EngineGiB free_before_weights, EngineGiB free_after_weights,
                                   double mem_fraction_static, std::int64_t cell);
// The `rest` of that formula, for reports.
EngineGiB profile_rest(EngineGiB free_before_weights, EngineGiB free_after_weights,
                       double mem_fraction_static);

// The smallest --mem-fraction-static, a multiple of 0.01 below 1, for which profile_rest of F
// and A is positive; nullopt when none is (A is not above 1% of F).
std::optional<double> smallest_mem_fraction_static(EngineGiB free_before_weights,
                                                   EngineGiB free_after_weights);

struct PoolSizing {
  std::int64_t profiled_tokens = 0;  // T before any clamp
  std::int64_t max_num_reqs = 0;     // rows of req_to_token
  std::int64_t max_total_num_tokens = 0;
  std::int64_t full_tokens = 0;  // hybrid SWA: full-attention pool
  std::int64_t swa_tokens = 0;   // hybrid SWA: sliding-window pool
};

struct PoolInputs {
  std::int64_t profiled_tokens = 0;
  std::int64_t context_len = 0;
  std::optional<std::int64_t> max_running_requests;  // user's or the speculative default
  std::optional<std::int64_t> max_total_tokens;
  std::int64_t page_size = 1;
  // Through v0.5.6 an EAGLE target's pool grows by max_num_reqs x this + 100 tokens, its
  // draft's steps x topk plus the verifier's draft tokens (0: no headroom).
  std::int64_t eagle_tokens_per_request = 0;
  // Through v0.4.6.x the request pool holds one row more than max_num_reqs.
  bool extra_request_row = false;
};

// sglang v0.5.9 model_runner_kv_cache_mixin.py init_memory, up to (not including) the PP
// MIN across stages: req pool rows, [the EAGLE headroom], --max-total-tokens, page rounding. The
// hybrid-SWA split comes after the PP MIN (split_hybrid_swa).
PoolSizing size_pools(const PoolInputs& in);

// The hybrid-SWA split of max_total_num_tokens (sglang v0.5.9 set_num_tokens_hybrid_swa).
void split_hybrid_swa(const KvGeometry& g, std::int64_t page_size, double ratio,
                      PoolSizing& sizing);

// sglang v0.5.9 model_runner.py initialize: min(T // 2 or user // dp, req pool rows).
std::int64_t max_running_requests(std::int64_t max_total_num_tokens,
                                  std::optional<std::int64_t> user_max_running_requests,
                                  std::int64_t attention_dp_size, std::int64_t req_pool_rows);

// "Not enough memory. Please try to increase --mem-fraction-static. Current value: …"
std::string not_enough_memory_message(double mem_fraction_static);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_KV_SIZING_H_
