// The tensors of one linear layer on one rank, by quantization method.
//
// A linear module is described by its shards on this rank: the rows of each fused part
// (q/k/v, gate/up) and its input columns, already divided by tensor parallelism. What it
// allocates then depends on the checkpoint's quantization, unless the checkpoint leaves
// the module unconverted (its Hugging Face names, `checkpoint_names`, match the
// quantization's not-converted patterns; fused parts must agree).
#ifndef GPUMEM_WEIGHTS_LINEAR_WEIGHTS_H_
#define GPUMEM_WEIGHTS_LINEAR_WEIGHTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "weights/tensor_list.h"

namespace gpumem {

enum class LinearParallel : unsigned char {
  kColumn,      // output rows split over the group (ColumnParallelLinear and its merged forms)
  kRow,         // input columns split over the group; bias is the full output
  kReplicated,  // whole on every rank
};

struct LinearModule {
  std::string prefix;                         // engine name, "model.layers.0.mlp.gate_up_proj"
  std::vector<std::string> checkpoint_names;  // HF modules fused into it
  std::vector<std::int64_t> output_sizes;     // this rank's rows of each fused part
  std::int64_t input_size = 0;                // this rank's input columns
  LinearParallel parallel = LinearParallel::kReplicated;
  int group_size = 1;  // ranks the module is split over (1 when replicated)
  bool bias = false;
};

// Appends the module's tensors (weight, scales, bias) in the engine's creation order and
// queues its post-load work. Shapes a kernel cannot take are errors worded as the engine's.
Status add_linear(TensorList& list, const BuildContext& ctx, const LinearModule& m,
                  PostLoadSteps& post_load);

// Whether a module with these checkpoint names is quantized by `q`; fused parts that
// disagree are an error (sglang refuses such checkpoints).
Result<bool> is_converted(const Quantization& q, const std::string& prefix,
                          const std::vector<std::string>& checkpoint_names);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_LINEAR_WEIGHTS_H_
