// The list of tensors a rank allocates, as the model builders append to it.
//
// Builders (rank_weights.cc, draft_weights.cc and the layer helpers) add tensors in the
// order the engine creates them; `release` marks a tensor as freed right after the most
// recently added one, which is how a replaced module or a transient copy is recorded.
// `BuildContext` bundles what every builder reads: the architecture, this rank's layout,
// the engine rules and the dtype parameters are created in. Work an engine does after all
// weights are loaded (quantization kernels repacking, per module, in construction order) is
// queued as `PostLoadSteps` while modules are built and replayed once construction is over.
#ifndef GPUMEM_WEIGHTS_TENSOR_LIST_H_
#define GPUMEM_WEIGHTS_TENSOR_LIST_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "catalog/dtype.h"
#include "weights/parallel_layout.h"
#include "weights/weight_rules.h"
#include "weights/weight_tensor.h"

namespace gpumem {

class TensorList {
 public:
  explicit TensorList(size_t expected) { tensors_.reserve(expected); }

  // Appends a tensor in the current phase; returns its index.
  int add(std::string name, std::vector<std::int64_t> shape, DType dtype);
  // Frees tensor `index` after the most recently added tensor.
  void release(int index);
  // Leaves tensor `index` allocated at the end of the load, for a later step to free.
  void release_later(int index) {
    tensors_[static_cast<size_t>(index)].released_after = kReleasedLater;
  }
  void set_phase(WeightPhase phase) { phase_ = phase; }

  int size() const { return static_cast<int>(tensors_.size()); }
  const WeightTensor& at(int index) const { return tensors_[static_cast<size_t>(index)]; }
  std::vector<WeightTensor> take() { return std::move(tensors_); }

 private:
  std::vector<WeightTensor> tensors_;
  WeightPhase phase_ = WeightPhase::kConstruction;
};

using PostLoadSteps = std::vector<std::function<void(TensorList&)>>;

struct BuildContext {
  const Architecture& arch;
  const ParallelLayout& layout;
  const WeightRules& rules;
  DType dtype;  // the dtype unquantized parameters are created in
};

// The dtype an engine creates unquantized parameters in: the checkpoint's torch_dtype, or
// rules.float32_checkpoint_dtype for float32 (or unspecified) checkpoints.
DType parameter_dtype(const Architecture& a, const WeightRules& rules);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_TENSOR_LIST_H_
