// SGLang's recurrent-state cache of hybrid linear-attention models (Qwen3-Next's Gated
// DeltaNet layers): the bytes one request's state takes, how many request slots the KV budget
// gives up for them (handle_max_mamba_cache), how far they cap the request pool, and the log
// line of the allocation.
//
// Each linear layer keeps, per request slot, a causal-convolution window (bf16) and a
// temporal state (--mamba-ssm-dtype, float32 by default); SGLang carves the slots out of the
// KV budget before it counts tokens, and only full-attention layers then count in cell_size.
// Pure functions, as kv_sizing.h: a test pins the inputs and compares to the slot.
#ifndef GPUMEM_ENGINE_SGLANG_MAMBA_CACHE_H_
#define GPUMEM_ENGINE_SGLANG_MAMBA_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "catalog/architecture.h"
#include "core/units.h"

namespace gpumem::sglang {

// One request slot's state, per linear layer, on one attention-TP rank.
struct MambaStateShape {
  std::int64_t layers = 0;      // linear layers of the whole model (not only this PP stage)
  std::int64_t conv_bytes = 0;  // conv_dim / tp x (kernel - 1) in bfloat16
  std::int64_t ssm_bytes = 0;   // value heads / tp x value dim x key dim in the SSM dtype
  std::int64_t ssm_element_size = 4;

  // configs/mamba_utils.py mamba_cache_per_req: every layer's conv and temporal state.
  std::int64_t per_request() const { return layers * (conv_bytes + ssm_bytes); }
  friend bool operator==(const MambaStateShape&, const MambaStateShape&) = default;
};

// sglang configs/qwen3_next.py Qwen3NextConfig.mamba2_cache_params (and nemotron_h.py's) with
// configs/mamba_utils.py Mamba2StateShape.create: one group is copied to every rank
// (extra_groups_for_head_shards); `ssm_element_size` 4 for float32, 2 for bfloat16.
MambaStateShape linear_state_shape(const Architecture& a, int attention_tp,
                                   std::int64_t ssm_element_size);

struct MambaBudgetInputs {
  double full_memory_ratio = 0.9;                    // --mamba-full-memory-ratio
  std::optional<std::int64_t> max_mamba_cache_size;  // --max-mamba-cache-size
  std::optional<std::int64_t> max_running_requests;  // --max-running-requests
  bool disable_radix_cache = false;
  std::int64_t attention_dp_size = 1;  // dp_size with --enable-dp-attention, else 1
};

struct MambaBudget {
  std::int64_t max_mamba_cache_size = 0;  // request slots of the state pool
  EngineGiB rest;                         // what is left for the KV cache
};

// sglang v0.5.9 model_runner_kv_cache_mixin.py handle_max_mamba_cache (no speculative
// decoding): the slots are --max-mamba-cache-size, or --max-running-requests without radix
// cache, else rest x r / (1 + r) over the per-request bytes; their bytes leave `rest`.
MambaBudget handle_max_mamba_cache(EngineGiB rest, std::int64_t per_request,
                                   const MambaBudgetInputs& in);

// sglang v0.5.9 calculate_mamba_ratio: state slots a running request may hold (1 without
// radix cache; 3 with it, 5 with the extra_buffer scheduler strategy's ping-pong slots). The
// request pool is capped at max_mamba_cache_size // ratio.
std::int64_t mamba_slots_per_request(bool disable_radix_cache, bool extra_buffer);

// memory_pool.py MambaPool.__init__: "Mamba Cache is allocated. max_mamba_cache_size: K,
// conv_state size: x.xxGB, ssm_state size: y.yyGB " (GiB, with the trailing space).
std::string log_mamba_allocated(std::int64_t max_mamba_cache_size, Bytes conv, Bytes ssm);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_MAMBA_CACHE_H_
