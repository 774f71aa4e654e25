#include "weights/parallel_layout.h"

#include <string>

namespace gpumem {

Status validate_layout(const ParallelLayout& l) {
  if (l.tp_size < 1 || l.pp_size < 1 || l.ep_size < 1 || l.dp_size < 1 || l.moe_dp_size < 1) {
    return invalid_input("parallel sizes must be at least 1 (tp " + std::to_string(l.tp_size) +
                         ", pp " + std::to_string(l.pp_size) + ", ep " + std::to_string(l.ep_size) +
                         ", dp " + std::to_string(l.dp_size) + ", MoE dp " +
                         std::to_string(l.moe_dp_size) + ")");
  }
  if (l.tp_rank < 0 || l.tp_rank >= l.tp_size) {
    return invalid_input("tp_rank " + std::to_string(l.tp_rank) + " is outside tp_size " +
                         std::to_string(l.tp_size));
  }
  if (l.pp_rank < 0 || l.pp_rank >= l.pp_size) {
    return invalid_input("pp_rank " + std::to_string(l.pp_rank) + " is outside pp_size " +
                         std::to_string(l.pp_size));
  }
  if (l.tp_size * l.moe_dp_size % l.ep_size != 0) {
    return invalid_input("ep_size " + std::to_string(l.ep_size) + " does not divide tp_size " +
                         std::to_string(l.tp_size) +
                         (l.moe_dp_size > 1 ? " x MoE dp " + std::to_string(l.moe_dp_size) : ""));
  }
  if (l.enable_dp_attention && l.tp_size % l.dp_size != 0) {
    return invalid_input("dp_size " + std::to_string(l.dp_size) + " does not divide tp_size " +
                         std::to_string(l.tp_size));
  }
  return Status::ok_status();
}

int attention_tp_size(const ParallelLayout& l) {
  return l.enable_dp_attention ? l.tp_size / l.dp_size : l.tp_size;
}

int moe_tp_size(const ParallelLayout& l) { return l.tp_size * l.moe_dp_size / l.ep_size; }

LayerRange pp_layer_range(std::int64_t num_layers, int pp_rank, int pp_size,
                          PpPartition partition) {
  const std::int64_t base = num_layers / pp_size;
  const std::int64_t extra = num_layers % pp_size;
  if (partition == PpPartition::kExtraBeforeLastStage) {
    // Stages pp_size - 1 - extra .. pp_size - 2 hold base + 1 layers.
    const std::int64_t first_extra = pp_size - 1 - extra;
    auto size = [&](std::int64_t stage) {
      return base + (stage >= first_extra && stage < pp_size - 1 ? 1 : 0);
    };
    std::int64_t start = 0;
    for (std::int64_t stage = 0; stage < pp_rank; ++stage) start += size(stage);
    return {start, start + size(pp_rank)};
  }
  const std::int64_t plain = pp_size - extra;  // stages without an extra layer come first
  if (pp_rank < plain) return {pp_rank * base, pp_rank * base + base};
  const std::int64_t start = pp_rank * (base + 1) - plain;
  return {start, start + base + 1};
}

}  // namespace gpumem
