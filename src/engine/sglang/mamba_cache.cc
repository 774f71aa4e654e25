#include "engine/sglang/mamba_cache.h"

#include <fmt/format.h>

#include <cmath>

namespace gpumem::sglang {

MambaStateShape linear_state_shape(const Architecture& a, int attention_tp,
                                   std::int64_t ssm_element_size) {
  const LinearAttentionConfig& g = a.linear;
  MambaStateShape s;
  s.layers = a.linear_layer_count();
  // Mamba2StateShape.create with intermediate_size = Hv x dv, n_groups = Hk, state_size = dk:
  // conv (conv_dim / tp, kernel - 1) in mamba_utils.py's CONV_DTYPE (bfloat16), temporal
  // (Hv / tp, dv, dk).
  constexpr std::int64_t kConvElementSize = 2;
  const std::int64_t groups = g.num_key_heads % attention_tp == 0 ? g.num_key_heads : attention_tp;
  const std::int64_t conv_dim = g.value_dim() + 2 * groups * g.key_head_dim;
  s.conv_bytes = conv_dim / attention_tp * (g.conv_kernel - 1) * kConvElementSize;
  s.ssm_bytes =
      g.num_value_heads / attention_tp * g.value_head_dim * g.key_head_dim * ssm_element_size;
  s.ssm_element_size = ssm_element_size;
  return s;
}

MambaBudget handle_max_mamba_cache(EngineGiB rest, std::int64_t per_request,
                                   const MambaBudgetInputs& in) {
  constexpr double kGiB = static_cast<double>(1LL << 30);
  MambaBudget b;
  if (in.max_mamba_cache_size) {
    b.max_mamba_cache_size = *in.max_mamba_cache_size / in.attention_dp_size;
  } else if (in.disable_radix_cache && in.max_running_requests) {
    b.max_mamba_cache_size = *in.max_running_requests / in.attention_dp_size;
  } else {
    // int(rest * r / (1 + r) * (1 << 30) // per_req): a float floor division, then int.
    const double ratio = in.full_memory_ratio;
    const double share = rest.value() * ratio / (1 + ratio) * kGiB;
    b.max_mamba_cache_size =
        static_cast<std::int64_t>(std::floor(share / static_cast<double>(per_request)));
  }
  b.rest = engine_gib(rest.value() - static_cast<double>(b.max_mamba_cache_size) *
                                         static_cast<double>(per_request) / kGiB);
  return b;
}

std::int64_t mamba_slots_per_request(bool disable_radix_cache, bool extra_buffer) {
  if (disable_radix_cache) return 1;
  return 3 + (extra_buffer ? 2 : 0);
}

std::string log_mamba_allocated(std::int64_t max_mamba_cache_size, Bytes conv, Bytes ssm) {
  constexpr double kGiB = static_cast<double>(1LL << 30);
  return fmt::format(
      "Mamba Cache is allocated. max_mamba_cache_size: {}, conv_state size: {:.2f}GB, "
      "ssm_state size: {:.2f}GB ",
      max_mamba_cache_size, static_cast<double>(conv.value()) / kGiB,
      static_cast<double>(ssm.value()) / kGiB);
}

}  // namespace gpumem::sglang
