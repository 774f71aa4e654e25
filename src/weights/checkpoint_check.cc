#include "weights/checkpoint_check.h"

namespace gpumem {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

std::vector<std::string> checkpoint_differences(const std::vector<CheckpointTensor>& derived,
                                                const SafetensorsCheckpoint& checkpoint) {
  std::vector<std::string> out;
  const std::vector<SafetensorsTensor>& real = checkpoint.tensors;
  size_t i = 0;
  size_t j = 0;
  while (i < derived.size() || j < real.size()) {
    if (j == real.size() || (i < derived.size() && derived[i].name < real[j].name)) {
      out.push_back(derived[i++].name + ": derived from config.json only");
    } else if (i == derived.size() || real[j].name < derived[i].name) {
      out.push_back(real[j++].name + ": in the checkpoint only");
    } else {
      const CheckpointTensor& d = derived[i++];
      const SafetensorsTensor& r = real[j++];
      if (d.dtype != r.dtype || d.shape != r.shape) {
        out.push_back(d.name + ": the checkpoint has " + r.dtype + " " + shape_text(r.shape) +
                      ", config.json gives " + d.dtype + " " + shape_text(d.shape));
      }
    }
  }
  return out;
}

}  // namespace gpumem
