// How one rank of an engine sits in the parallel layout, and what it implies for sharding.
//
// Tensor parallelism (tp) splits attention heads, MLP widths and the vocabulary over
// `tp_size` ranks. Pipeline parallelism (pp) gives each stage a contiguous range of decoder
// layers. Expert parallelism splits the routed experts of every MoE layer over `ep_size`
// ranks of the TP group, which leaves each expert sharded `tp_size / ep_size` ways
// (moe_tp). With DP attention, attention runs data-parallel over `dp_size` groups, so its
// weights are sharded only `tp_size / dp_size` ways (attention tp). vLLM's data parallelism
// is the other way round: attention and every dense layer stay split over the TP group, and
// the MoE layers span the data-parallel ranks as well (`moe_dp_size`), so the experts are
// split over tp_size x moe_dp_size ranks (vllm v0.21 layers/fused_moe/config.py
// FusedMoEParallelConfig.make flattens DP x TP).
#ifndef GPUMEM_WEIGHTS_PARALLEL_LAYOUT_H_
#define GPUMEM_WEIGHTS_PARALLEL_LAYOUT_H_

#include <cstdint>

#include "core/status.h"

namespace gpumem {

struct ParallelLayout {
  int tp_size = 1;
  int tp_rank = 0;
  int pp_size = 1;
  int pp_rank = 0;
  int ep_size = 1;
  bool enable_dp_attention = false;
  int dp_size = 1;
  int moe_dp_size = 1;

  friend bool operator==(const ParallelLayout&, const ParallelLayout&) = default;
};

// Sizes and ranks must be in range, ep_size must divide the MoE group (tp_size x
// moe_dp_size) and (with DP attention) dp_size must divide tp_size. Errors are worded for a user
// who wrote the layout.
Status validate_layout(const ParallelLayout& l);

// sglang v0.5.9 layers/dp_attention.py compute_dp_attention_world_info: tp / dp under DP
// attention, else tp.
int attention_tp_size(const ParallelLayout& l);
// sglang v0.5.9 distributed/parallel_state.py initialize_model_parallel: moe_tp = tp / ep;
// vllm v0.21 FusedMoEParallelConfig.make: tp x dp without expert parallelism, else 1.
int moe_tp_size(const ParallelLayout& l);

// The decoder layers [start, end) a pipeline stage owns.
struct LayerRange {
  std::int64_t start = 0;
  std::int64_t end = 0;
  friend bool operator==(const LayerRange&, const LayerRange&) = default;
};

// Which stages take the num_layers % pp_size layers left over.
enum class PpPartition : unsigned char {
  // sglang v0.5.9 distributed/utils.py get_pp_indices: the last stages, one each.
  kExtraOnLastStages,
  // vllm distributed/utils.py get_pp_indices: the stages before the last one (which also
  // holds the lm_head), starting next to it.
  kExtraBeforeLastStage,
};

// Every stage gets num_layers / pp_size layers, and `partition` says which get one more
// (without SGLANG_PP_LAYER_PARTITION / VLLM_PP_LAYER_PARTITION).
LayerRange pp_layer_range(std::int64_t num_layers, int pp_rank, int pp_size,
                          PpPartition partition = PpPartition::kExtraOnLastStages);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_PARALLEL_LAYOUT_H_
