#include "weights/pinned_weights.h"

namespace gpumem {

WeightList pinned_weights(Bytes size) {
  if (size.value() == 0) return std::make_shared<const std::vector<WeightTensor>>();
  WeightTensor t;
  t.name = "weights (pinned size)";
  t.shape = {size.value()};
  t.dtype = DType::kUInt8;
  t.bytes = size;
  return std::make_shared<const std::vector<WeightTensor>>(std::vector<WeightTensor>{t});
}

}  // namespace gpumem
