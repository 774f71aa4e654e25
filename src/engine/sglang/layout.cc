#include "engine/sglang/layout.h"

#include <string>

namespace gpumem::sglang {

std::int64_t gpus_needed(const ServerFlags& flags) {
  const std::int64_t replicas = flags.enable_dp_attention ? 1 : flags.dp_size;
  return std::int64_t{flags.tp_size} * flags.pp_size * replicas;
}

bool check_layout(const Scenario& scenario, const ServerFlags& flags, Diagnostics& diags) {
  bool computable = true;
  const int have = scenario.total_gpus();
  const std::int64_t need = gpus_needed(flags);
  if (have > 0 && need != have) {
    std::string formula = "--tp-size " + std::to_string(flags.tp_size) + " × --pp-size " +
                          std::to_string(flags.pp_size);
    if (!flags.enable_dp_attention) formula += " × --dp-size " + std::to_string(flags.dp_size);
    diags.error(scenario.hardware.count_loc, "the hardware has " + std::to_string(have) +
                                                 " GPUs but " + formula + " uses " +
                                                 std::to_string(need));
  }
  if (flags.enable_dp_attention && flags.tp_size % flags.dp_size != 0) {
    computable = false;
    // sglang v0.5.9 dp_attention.py compute_dp_attention_world_info: attn_tp = tp // dp.
    diags.error(*flags.raw.location("--dp-size"),
                "--dp-size " + std::to_string(flags.dp_size) + " must divide --tp-size " +
                    std::to_string(flags.tp_size) + " with --enable-dp-attention");
  }
  if (flags.ep_size > 1 && flags.tp_size % flags.ep_size != 0) {
    computable = false;
    // sglang v0.5.9 server_args.py: expert parallelism runs inside the TP group.
    diags.error(*flags.raw.location("--ep-size"), "--ep-size " + std::to_string(flags.ep_size) +
                                                      " must divide --tp-size " +
                                                      std::to_string(flags.tp_size));
  }
  return computable;
}

}  // namespace gpumem::sglang
