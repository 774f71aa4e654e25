#include "engine/sglang/kv_sizing.h"

#include <algorithm>

#include "core/python_format.h"

namespace gpumem::sglang {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t cell_size(const KvGeometry& g) {
  // sglang v0.5.9 model_runner_kv_cache_mixin.py get_cell_size_per_token.
  constexpr std::int64_t kFp4ScaleBlock = 16;
  if (g.mla) {
    const std::int64_t latent = g.kv_lora_rank + g.qk_rope_head_dim;
    std::int64_t cell = latent * g.layers * g.kv_element_size;
    if (g.fp4) cell = cell / 2 + (latent / kFp4ScaleBlock) * g.layers * g.kv_element_size;
    if (g.cell_counts_stored_latent) cell = mla_row_bytes(g) * g.layers;
    // DSA (PR #11309): the indexer keys are counted; through v0.5.17 the latent is counted at
    // 576 x the element size even where the pool stores 656 FP8-layout bytes per row, so
    // the pool holds about 11 % more than the budget.
    return cell + g.index_key_bytes * g.layers;
  }
  std::int64_t cell = 0;
  if (g.hybrid_swa) {
    const std::int64_t full = g.kv_heads * (g.head_dim + g.v_head_dim);
    const std::int64_t swa = g.swa_kv_heads * (g.swa_head_dim + g.swa_v_head_dim);
    cell = (full * g.full_layers + swa * g.swa_layers) * g.kv_element_size;
  } else {
    cell = g.kv_heads * (g.head_dim + g.v_head_dim) * g.layers * g.kv_element_size;
  }
  if (g.fp4) {
    cell = cell / 2 + (g.kv_heads * g.head_dim * g.layers * 2 * g.kv_element_size) / kFp4ScaleBlock;
  }
  return cell;
}

std::int64_t mla_row_bytes(const KvGeometry& g) {
  // model_runner_kv_cache_mixin.py calculate_mla_kv_cache_dim: kv_lora_rank FP8 values, a
  // float32 scale per 128 of them, the rope part in bfloat16.
  if (g.fp8_latent_layout)
    return g.kv_lora_rank + g.kv_lora_rank / 128 * 4 + g.qk_rope_head_dim * 2;
  return (g.kv_lora_rank + g.qk_rope_head_dim) * g.kv_element_size;
}

std::int64_t index_buffer_bytes(const KvGeometry& g, std::int64_t tokens, std::int64_t page_size) {
  return (tokens + page_size + 1) / page_size * page_size * g.index_key_bytes;
}

EngineGiB profile_rest(EngineGiB free_before_weights, EngineGiB free_after_weights,
                       double mem_fraction_static) {
  // rest_memory = available_gpu_memory - total_gpu_memory * (1 - mem_fraction_static)
  const double slack = free_before_weights.value() * (1 - mem_fraction_static);
  return engine_gib(free_after_weights.value() - slack);
}

std::optional<double> smallest_mem_fraction_static(EngineGiB free_before_weights,
                                                   EngineGiB free_after_weights) {
  for (int percent = 1; percent < 100; ++percent) {
    const double mfs = percent / 100.0;
    if (profile_rest(free_before_weights, free_after_weights, mfs).value() > 0) return mfs;
  }
  return std::nullopt;
}

std::int64_t profile_max_num_token(EngineGiB free_before_weights, EngineGiB free_after_weights,
                                   double mem_fraction_static, std::int64_t cell) {
  const EngineGiB rest = profile_rest(free_before_weights, free_after_weights, mem_fraction_static);
  return floor_div(truncate_to_bytes(rest).value(), cell);
}

void split_hybrid_swa(const KvGeometry& g, std::int64_t page_size, double ratio,
                      PoolSizing& sizing) {
  auto align = [&](std::int64_t x) { return floor_div(x, page_size) * page_size; };
  if (g.full_layers == 0) {
    sizing.swa_tokens = align(sizing.max_total_num_tokens);
    sizing.full_tokens = 0;
    sizing.max_total_num_tokens = sizing.swa_tokens;
    return;
  }
  const std::int64_t full_per_token = g.kv_heads * (g.head_dim + g.v_head_dim) * g.kv_element_size;
  const std::int64_t swa_per_token =
      g.swa_kv_heads * (g.swa_head_dim + g.swa_v_head_dim) * g.kv_element_size;
  const std::int64_t total_memory =
      sizing.max_total_num_tokens * (full_per_token * g.full_layers + swa_per_token * g.swa_layers);
  // denominator is a Python float: full·n_full + r·S·n_swa.
  const double denominator =
      static_cast<double>(full_per_token * g.full_layers) +
      ratio * static_cast<double>(swa_per_token) * static_cast<double>(g.swa_layers);
  std::int64_t full = static_cast<std::int64_t>(static_cast<double>(total_memory) / denominator);
  std::int64_t swa = static_cast<std::int64_t>(static_cast<double>(full) * ratio);
  sizing.full_tokens = align(full);
  sizing.swa_tokens = align(swa);
  sizing.max_total_num_tokens = sizing.full_tokens;
}

PoolSizing size_pools(const PoolInputs& in) {
  PoolSizing s;
  s.profiled_tokens = in.profiled_tokens;
  s.max_total_num_tokens = in.profiled_tokens;
  if (in.max_running_requests) {
    s.max_num_reqs = *in.max_running_requests;
  } else {
    // int(T / context_len * 512): true division in Python floats, then truncation.
    const double estimate =
        static_cast<double>(in.profiled_tokens) / static_cast<double>(in.context_len) * 512;
    s.max_num_reqs = std::min<std::int64_t>(
        std::max<std::int64_t>(static_cast<std::int64_t>(estimate), 2048), 4096);
  }
  if (in.eagle_tokens_per_request > 0) {
    // sglang v0.5.6 model_runner.py init_memory_pool: draft_runner_cache_size, shared by the
    // target and its draft ("both verify and draft tokens can be concurrently allocated").
    s.max_total_num_tokens += s.max_num_reqs * in.eagle_tokens_per_request + 100;
  }
  if (in.max_total_tokens) {
    s.max_total_num_tokens = std::min(s.max_total_num_tokens, *in.max_total_tokens);
  }
  s.max_total_num_tokens = floor_div(s.max_total_num_tokens, in.page_size) * in.page_size;
  // sglang v0.4.6 model_runner.py init_memory_pool: ReqToTokenPool(size=max_num_reqs + 1).
  if (in.extra_request_row) ++s.max_num_reqs;
  return s;
}

std::int64_t max_running_requests(std::int64_t max_total_num_tokens,
                                  std::optional<std::int64_t> user_max_running_requests,
                                  std::int64_t attention_dp_size, std::int64_t req_pool_rows) {
  const std::int64_t wanted = user_max_running_requests
                                  ? *user_max_running_requests / attention_dp_size
                                  : floor_div(max_total_num_tokens, 2);
  return std::min(wanted, req_pool_rows);
}

std::string not_enough_memory_message(double mem_fraction_static) {
  // sglang v0.5.9 model_runner_kv_cache_mixin.py init_memory, f-string with `=`: repr().
  return "Not enough memory. Please try to increase --mem-fraction-static. Current value: "
         "self.server_args.mem_fraction_static=" +
         python_float_repr(mem_fraction_static);
}

}  // namespace gpumem::sglang
