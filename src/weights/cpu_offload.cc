#include "weights/cpu_offload.h"

#include <charconv>
#include <optional>
#include <string_view>

namespace gpumem {
namespace {

// The decoder layer a tensor belongs to ("model.layers.12.mlp..." is layer 12's), nullopt for
// one outside the layer stack. A buffer is not a parameter: vllm's get_rope registers its
// cos_sin_cache with register_buffer, which module.parameters() does not yield.
std::optional<std::string_view> layer_of(std::string_view name) {
  for (std::string_view root : {"model.layers.", "backbone.layers."}) {
    if (!name.starts_with(root)) continue;
    if (name.ends_with("cos_sin_cache")) return std::nullopt;
    const size_t dot = name.find('.', root.size());
    if (dot == std::string_view::npos) return std::nullopt;
    return name.substr(0, dot + 1);
  }
  return std::nullopt;
}

// The index N of a layer prefix "model.layers.N.".
std::int64_t layer_index(std::string_view prefix) {
  prefix.remove_suffix(1);
  const std::string_view digits = prefix.substr(prefix.rfind('.') + 1);
  std::int64_t n = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), n);
  return n;
}

}  // namespace

OffloadedWeights offload_decoder_layers(const WeightList& list, Bytes budget) {
  std::vector<WeightTensor> tensors(tensors_of(list).begin(), tensors_of(list).end());
  Bytes offloaded = bytes(0);
  std::vector<OffloadedLayer> by_layer;
  size_t i = 0;
  while (i < tensors.size() && offloaded < budget) {
    const std::optional<std::string_view> layer = layer_of(tensors[i].name);
    if (!layer || tensors[i].phase != WeightPhase::kConstruction) {
      ++i;
      continue;
    }
    // The layer's tensors as built, up to the last one allocated before the next module.
    size_t end = i;
    while (end < tensors.size() && tensors[end].phase == WeightPhase::kConstruction &&
           (tensors[end].name.starts_with(*layer) || !layer_of(tensors[end].name))) {
      ++end;
    }
    while (end > i + 1 && !tensors[end - 1].name.starts_with(*layer)) --end;
    const int last = static_cast<int>(end - 1);
    OffloadedLayer moved{layer_index(*layer), {}};
    for (size_t t = i; t < end && offloaded < budget; ++t) {
      const std::optional<std::string_view> of = layer_of(tensors[t].name);
      if (!of || *of != *layer || tensors[t].released_after != kResident) continue;
      tensors[t].released_after = last;
      offloaded += tensors[t].bytes;
      moved.tensors.push_back(tensors[t].bytes);
    }
    if (!moved.tensors.empty()) by_layer.push_back(std::move(moved));
    i = end;
  }
  return {std::make_shared<const std::vector<WeightTensor>>(std::move(tensors)), offloaded,
          std::move(by_layer)};
}

}  // namespace gpumem
