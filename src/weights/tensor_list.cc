#include "weights/tensor_list.h"

namespace gpumem {

int TensorList::add(std::string name, std::vector<std::int64_t> shape, DType dtype) {
  // Checked (saturating) products: a shape from an absurd config cannot wrap to a small size.
  Bytes tensor_bytes = element_size(dtype);
  for (std::int64_t d : shape) tensor_bytes = tensor_bytes * d;
  tensors_.push_back({std::move(name), std::move(shape), dtype, tensor_bytes, phase_, kResident});
  return size() - 1;
}

void TensorList::release(int index) {
  tensors_[static_cast<size_t>(index)].released_after = size() - 1;
}

DType parameter_dtype(const Architecture& a, const WeightRules& rules) {
  return a.dtype == DType::kFloat32 ? rules.float32_checkpoint_dtype : a.dtype;
}

}  // namespace gpumem
