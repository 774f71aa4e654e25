// --cpu-offload-gb's move of decoder-layer parameters to CPU memory (weights/cpu_offload.h),
// on a hand-written tensor list: the budget checked before each parameter, buffers and
// tensors outside the layer stack kept, each moved tensor freed after its layer's last.
#include "weights/cpu_offload.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace gpumem {
namespace {

WeightTensor tensor(std::string name, std::int64_t size) {
  WeightTensor t;
  t.name = std::move(name);
  t.shape = {size};
  t.dtype = DType::kUInt8;
  t.bytes = bytes(size);
  return t;
}

// An embedding, two layers (a RoPE buffer inside the first) and the head, as built.
WeightList two_layers() {
  return std::make_shared<const std::vector<WeightTensor>>(std::vector<WeightTensor>{
      tensor("model.embed_tokens.weight", 1000),
      tensor("model.layers.0.self_attn.qkv_proj.weight", 400),
      tensor("model.layers.0.self_attn.rotary_emb.cos_sin_cache", 50),
      tensor("model.layers.0.mlp.down_proj.weight", 300),
      tensor("model.layers.0.input_layernorm.weight", 10),
      tensor("model.layers.1.self_attn.qkv_proj.weight", 400),
      tensor("model.layers.1.mlp.down_proj.weight", 300),
      tensor("model.layers.1.input_layernorm.weight", 10),
      tensor("model.norm.weight", 10),
      tensor("lm_head.weight", 1000),
  });
}

std::vector<int> released(const OffloadedWeights& o) {
  std::vector<int> out;
  for (const WeightTensor& t : tensors_of(o.weights)) out.push_back(t.released_after);
  return out;
}

TEST(CpuOffload, StopsAtTheFirstParameterThatReachesTheBudget) {
  // 400 < 500: qkv moves; 400 < 500: down_proj moves (700, over the budget); then it stops.
  const OffloadedWeights o = offload_decoder_layers(two_layers(), bytes(500));
  EXPECT_EQ(o.offloaded, bytes(700));
  // Freed after the layer's last tensor (index 4), the buffer and the norm kept.
  EXPECT_EQ(released(o), (std::vector<int>{kResident, 4, kResident, 4, kResident, kResident,
                                           kResident, kResident, kResident, kResident}));
  EXPECT_EQ(resident_bytes(tensors_of(o.weights)), bytes(3480 - 700));
}

TEST(CpuOffload, MovesEveryLayerParameterButNothingOutsideTheStack) {
  const OffloadedWeights o = offload_decoder_layers(two_layers(), bytes(1'000'000));
  EXPECT_EQ(o.offloaded, bytes(2 * 710));
  EXPECT_EQ(released(o),
            (std::vector<int>{kResident, 4, kResident, 4, 4, 7, 7, 7, kResident, kResident}));
}

TEST(CpuOffload, ABudgetOfOneByteMovesOneParameter) {
  const OffloadedWeights o = offload_decoder_layers(two_layers(), bytes(1));
  EXPECT_EQ(o.offloaded, bytes(400));
}

}  // namespace
}  // namespace gpumem
