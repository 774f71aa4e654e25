// compressed-tensors W8A8 checkpoints per rank (weights/linear_weights.cc add_w8a8): 8-bit
// weights, float32 scales per output row or per fused part, static input scales, and what
// loading leaves: FP8 parts requantized to one scale, INT8 per-tensor scales expanded to
// rows, or (FP8 without FP8 tensor cores) Marlin's repacked weight, a row of scales in the
// model dtype and a workspace. The model is the published Mistral-Nemo-Instruct-2407 config
// with the quantization block llm-compressor writes (lm_head ignored); every byte count is
// derived here: 40 layers of 272,629,760 linear weights whose output rows are 6144 (qkv),
// 5120 (o), 28672 (gate_up) and 5120 (down).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/config_errors.h"
#include "support/quantized_config.h"
#include "support/weight_test_models.h"
#include "weights/checkpoint_tensors.h"
#include "weights/rank_weights.h"

namespace gpumem {
namespace {

using weight_tests::find;

const std::string kNemo = "mistralai--Mistral-Nemo-Instruct-2407";
constexpr std::int64_t kLayerWeights = 272'629'760;
constexpr std::int64_t kLayerRows = 6144 + 5120 + 28672 + 5120;

// A W8A8 block: weights of `type` with `strategy` scales, activations `dynamic` or not.
std::string w8a8(const std::string& format, const std::string& type, const std::string& strategy,
                 bool dynamic) {
  return R"({"quant_method": "compressed-tensors", "format": ")" + format +
         R"(", "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"],
           "weights": {"num_bits": 8, "type": ")" +
         type + R"(", "strategy": ")" + strategy +
         R"(", "symmetric": true},
           "input_activations": {"num_bits": 8, "type": ")" +
         type + R"(", "strategy": "token", "symmetric": true, "dynamic": )" +
         (dynamic ? "true" : "false") + "}}}}";
}

std::int64_t total(const Architecture& a, const WeightRules& rules = {}) {
  Result<WeightList> w = rank_weights(a, {}, rules);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? resident_bytes(**w).value() : -1;
}

std::vector<WeightTensor> tensors(const Architecture& a, const WeightRules& rules = {}) {
  Result<WeightList> w = rank_weights(a, {}, rules);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? **w : std::vector<WeightTensor>{};
}

TEST(W8a8Weights, Int8PerRowDynamic) {
  const Architecture a =
      quantized_config(kNemo, w8a8("int-quantized", "int", "channel", /*dynamic=*/true));
  EXPECT_EQ(a.quantization.method, QuantMethod::kCompressedTensorsW8a8);
  EXPECT_FALSE(a.quantization.float_weights);
  const std::vector<WeightTensor> w = tensors(a);
  const std::string qkv = "model.layers.0.self_attn.qkv_proj";
  EXPECT_EQ(find(w, qkv + ".weight")->bytes.value(), 6144 * 5120);  // int8
  EXPECT_EQ(find(w, qkv + ".weight_scale")->bytes.value(), 4 * 6144);
  EXPECT_EQ(find(w, qkv + ".input_scale"), nullptr);
  // One byte a weight and a float32 scale a row, where bfloat16 kept two bytes a weight.
  const std::int64_t dense = total(quantized_config(kNemo, ""));
  EXPECT_EQ(dense - total(a), 40 * (kLayerWeights - 4 * kLayerRows));
  EXPECT_EQ(dense - total(a), 10'897'981'440);
}

TEST(W8a8Weights, Int8PerTensorScalesOfFusedPartsBecomeRows) {
  // INT8 with one scale per part: qkv_proj's 3 and gate_up_proj's 2 expand to one per row
  // (6144 and 28672); o_proj and down_proj keep their single scale.
  const Architecture a =
      quantized_config(kNemo, w8a8("int-quantized", "int", "tensor", /*dynamic=*/true));
  const std::int64_t dense = total(quantized_config(kNemo, ""));
  EXPECT_EQ(dense - total(a), 40 * (kLayerWeights - 4 * (6144 + 28672) - 4 - 4));
}

TEST(W8a8Weights, Fp8PerTensorStaticAndItsMarlinForm) {
  const Architecture a =
      quantized_config(kNemo, w8a8("float-quantized", "float", "tensor", /*dynamic=*/false));
  EXPECT_TRUE(a.quantization.float_weights);
  EXPECT_TRUE(a.quantization.activation_scales);
  const std::string qkv = "model.layers.0.self_attn.qkv_proj";
  const std::vector<WeightTensor> fp8 = tensors(a);
  EXPECT_EQ(find(fp8, qkv + ".input_scale")->bytes.value(), 4 * 3);
  EXPECT_EQ(find(fp8, qkv + ".input_scale")->released_after == kResident, false);
  // Each linear keeps one weight scale and one input scale, float32 scalars.
  const std::int64_t dense = total(quantized_config(kNemo, ""));
  EXPECT_EQ(dense - total(a), 40 * (kLayerWeights - 4 * 8));
  // Marlin: a row of bfloat16 scales and 132 int32 of workspace per linear, no input scale.
  const std::int64_t marlin = total(a, WeightRules{.fp8_marlin = true});
  EXPECT_EQ(marlin - total(a), 40 * (2 * kLayerRows + 4 * 4 * 132 - 4 * 8));
  EXPECT_EQ(marlin - total(a), 3'687'680);
}

TEST(W8a8Checkpoint, TensorsAsLlmCompressorWritesThem) {
  Result<std::vector<CheckpointTensor>> ts = checkpoint_tensors(
      quantized_config(kNemo, w8a8("int-quantized", "int", "channel", /*dynamic=*/false)));
  ASSERT_TRUE(ts.ok()) << ts.status().message();
  const std::string q = "model.layers.0.self_attn.q_proj";
  int seen = 0;
  for (const CheckpointTensor& t : *ts) {
    if (t.name == q + ".weight") {
      EXPECT_EQ(t.dtype, "I8");
      EXPECT_EQ(t.shape, (std::vector<std::int64_t>{4096, 5120}));
      ++seen;
    } else if (t.name == q + ".weight_scale") {
      EXPECT_EQ(t.dtype, "BF16");
      EXPECT_EQ(t.shape, (std::vector<std::int64_t>{4096, 1}));
      ++seen;
    } else if (t.name == q + ".input_scale") {
      EXPECT_EQ(t.bytes.value(), 2);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 3);
}

TEST(W8a8Config, FormsNotModelledAreRefusedAtTheirKeys) {
  const std::string model = kSmallLlamaConfig;
  EXPECT_EQ(
      config_errors(model + "quantization_config: {quant_method: compressed-tensors, format: "
                            "float-quantized, config_groups: {g: {targets: [Linear], weights: "
                            "{num_bits: 8, type: float, strategy: block}}}}\n"),
      "t.json:8:167: compressed-tensors 8-bit strategy 'block' is not modelled; gpumem "
      "models channel and tensor\n"
      "t.json:8:130: compressed-tensors 8-bit weights without input_activations (W8A16) "
      "are not modelled\n");
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: compressed-tensors, format: "
                                  "int-quantized, config_groups: {g: {targets: [Linear], weights: "
                                  "{num_bits: 8, type: int}, input_activations: {num_bits: 8, "
                                  "symmetric: false, dynamic: true}}}}\n"),
            "t.json:8:198: asymmetric 8-bit activations (input zero points) are not "
            "modelled\n");
}

}  // namespace
}  // namespace gpumem
