// One tensor a rank allocates while an engine builds and loads a model.
//
// `rank_weights` (rank_weights.h) lists them in allocation order because each goes through
// PyTorch's caching allocator on its own: the allocator rounds every tensor and packs small
// ones into shared 2 MiB segments, so order and sizes both matter. A few tensors do not live
// for the rest of the run (a module replaced while it is being built, a transient copy made
// while repacking weights): `released_after` says after which tensor of the same list the
// engine frees them, so an allocator emulation can replay allocations and frees exactly.
// A draft model's embedding and head outlive its loading and are freed by a later start-up
// step, when the speculative worker hands it the target's (kReleasedLater).
#ifndef GPUMEM_WEIGHTS_WEIGHT_TENSOR_H_
#define GPUMEM_WEIGHTS_WEIGHT_TENSOR_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "catalog/dtype.h"
#include "core/units.h"

namespace gpumem {

enum class WeightPhase : unsigned char {
  kConstruction,  // created with its module (torch.empty on the device), filled by loading
  kPostLoad,      // created by post-load processing (absorbed MLA copies, kernel repacks)
  kDraftSetup,    // created by the speculative worker once the draft model is loaded
};

// `released_after` of a tensor that stays allocated.
inline constexpr int kResident = -1;
// `released_after` of a tensor still allocated when the list has been loaded and freed by a
// later start-up step (runtime/weight_loading.h hands its block back to the program).
inline constexpr int kReleasedLater = -2;

struct WeightTensor {
  std::string name;  // the engine's parameter or buffer name
  std::vector<std::int64_t> shape;
  DType dtype = DType::kBFloat16;
  Bytes bytes;  // element count x element size, before any allocator rounding
  WeightPhase phase = WeightPhase::kConstruction;
  // Index in the same list of the tensor whose allocation precedes this one's release;
  // kResident when it is never released, kReleasedLater when a later step frees it.
  int released_after = kResident;
};

// A rank's tensor list, shared and immutable: plans hold lists by reference because a sweep
// or a fit search builds plans with the same lists many times over, and a list of
// thousands of named tensors costs far more to copy and destroy than to share.
using WeightList = std::shared_ptr<const std::vector<WeightTensor>>;

// The tensors of `list`; none for a null list.
inline std::span<const WeightTensor> tensors_of(const WeightList& list) {
  return list ? std::span<const WeightTensor>(*list) : std::span<const WeightTensor>();
}

// Bytes of the tensors still allocated once the whole list has been replayed (those a later
// step frees included).
Bytes resident_bytes(std::span<const WeightTensor> tensors);
// Bytes of the tensors a later step frees (kReleasedLater).
Bytes released_later_bytes(std::span<const WeightTensor> tensors);
// Bytes of all tensors, released ones included.
Bytes allocated_bytes(std::span<const WeightTensor> tensors);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_WEIGHT_TENSOR_H_
