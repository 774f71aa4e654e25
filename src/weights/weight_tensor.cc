#include "weights/weight_tensor.h"

namespace gpumem {

Bytes resident_bytes(std::span<const WeightTensor> tensors) {
  Bytes total = bytes(0);
  for (const WeightTensor& t : tensors) {
    if (t.released_after == kResident || t.released_after == kReleasedLater) total += t.bytes;
  }
  return total;
}

Bytes released_later_bytes(std::span<const WeightTensor> tensors) {
  Bytes total = bytes(0);
  for (const WeightTensor& t : tensors) {
    if (t.released_after == kReleasedLater) total += t.bytes;
  }
  return total;
}

Bytes allocated_bytes(std::span<const WeightTensor> tensors) {
  Bytes total = bytes(0);
  for (const WeightTensor& t : tensors) total += t.bytes;
  return total;
}

}  // namespace gpumem
