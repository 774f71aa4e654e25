// Quantized experts per rank (weights/moe_weights.cc): AWQ and GPTQ experts on Marlin
// (add_int4_marlin_moe) and 8-bit experts with per-tensor or per-channel scales
// (add_w8_experts: ModelOpt FP8, AutoFP8, compressed-tensors FP8 and INT8),
// on Qwen3-30B-A3B's published config (128 experts of hidden 2048, intermediate 768, 48
// layers) with the quantization block each exporter writes; every byte count is derived here
// from those numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "support/model_configs.h"
#include "support/quantized_config.h"
#include "support/weight_test_models.h"
#include "weights/rank_weights.h"

namespace gpumem {
namespace {

using weight_tests::bytes_of;
using weight_tests::find;
using weight_tests::resident;

const std::string kQwen3Moe = "Qwen--Qwen3-30B-A3B-Instruct-2507";

std::vector<WeightTensor> weights(const Architecture& a) {
  Result<WeightList> w = rank_weights(a, {}, {});
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? **w : std::vector<WeightTensor>{};
}

// The bytes the tensors of `prefix` keep once loaded.
std::int64_t resident_under(const std::vector<WeightTensor>& list, const std::string& prefix) {
  std::int64_t sum = 0;
  for (const WeightTensor& t : list) {
    if (t.name.starts_with(prefix + ".") && t.released_after == kResident) sum += t.bytes.value();
  }
  return sum;
}

// AWQ and GPTQ experts (weights/moe_weights.cc add_int4_marlin_moe): Qwen3-30B-A3B's 128
// experts of hidden 2048 and intermediate 768, with a 4-bit group-128 block as AutoAWQ and
// GPTQModel export it (the attention kept in bfloat16 by modules_to_not_convert / its own
// layers), on one H100 (132 SMs).
TEST(QuantizedExperts, AwqAndGptqOnMarlin) {
  constexpr std::int64_t e = 128, h = 2048, i = 768, layers = 48;
  const Architecture awq =
      quantized_config("Qwen--Qwen3-30B-A3B-Instruct-2507",
                       R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true,
          "version": "gemm", "modules_to_not_convert": ["self_attn"]})");
  const std::vector<WeightTensor> w = weights(awq);
  const std::string experts = "model.layers.0.mlp.experts";
  // AWQ packs along N: w13 [E, H, 2I / 8], w2 [E, I, H / 8]; zero points likewise per group.
  EXPECT_EQ(bytes_of(w, experts + ".w13_qweight"), 4 * e * h * (2 * i / 8));
  EXPECT_EQ(bytes_of(w, experts + ".w2_qweight"), 4 * e * i * (h / 8));
  EXPECT_EQ(bytes_of(w, experts + ".w13_scales"), 2 * e * (h / 128) * 2 * i);
  EXPECT_EQ(bytes_of(w, experts + ".w2_qzeros"), 4 * e * (i / 128) * (h / 8));
  EXPECT_FALSE(resident(w, experts + ".w13_qweight"));
  EXPECT_TRUE(resident(w, experts + ".w13_qweight_marlin"));
  EXPECT_TRUE(resident(w, experts + ".w2_qzeros_marlin"));
  EXPECT_EQ(bytes_of(w, experts + ".workspace"), 4 * 132 * 4);
  const std::int64_t awq_layer = 4 * e * (h * 2 * i + i * h) / 8 +
                                 2 * e * ((h / 128) * 2 * i + (i / 128) * h) +
                                 4 * e * ((h / 128) * 2 * i + (i / 128) * h) / 8 + 4 * 132 * 4;
  EXPECT_EQ(awq_layer, 313'788'480);
  // Against the bfloat16 model: only the experts differ (bfloat16 experts: 2 bytes a weight).
  const std::vector<WeightTensor> bf16 = weights(quantized_config(kQwen3Moe, ""));
  EXPECT_EQ(resident_bytes(bf16).value() - resident_bytes(w).value(),
            layers * (2 * e * 3 * h * i - awq_layer));
  // GPTQ packs along K: w13 [E, H / 8, 2I]; its g_idx and sort indices are freed after
  // loading (no activation order) and its zero points stay as loaded.
  const Architecture gptq =
      quantized_config("Qwen--Qwen3-30B-A3B-Instruct-2507",
                       R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": false,
          "sym": true})");
  const std::vector<WeightTensor> g = weights(gptq);
  EXPECT_EQ(bytes_of(g, experts + ".w13_qweight"), 4 * (e * (h / 8) * 2 * i));
  EXPECT_FALSE(resident(g, experts + ".w13_g_idx"));
  EXPECT_TRUE(resident(g, experts + ".w13_qzeros"));
  // The same bytes per expert layer as AWQ's once loaded.
  EXPECT_EQ(resident_under(g, experts), awq_layer);
  EXPECT_EQ(resident_under(w, experts), awq_layer);
  // With activation order the layers are refused by name (the attention's first).
  const Architecture ordered = quantized_config(
      kQwen3Moe, R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": true})");
  Result<WeightList> refused = rank_weights(ordered, {}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("desc_act (activation order) is not modelled"),
            std::string::npos)
      << refused.status().message();
}

// ModelOpt FP8 experts: one byte a weight, two float32 w13 scales per expert that loading
// reduces to their maximum, one w2 scale, and the input scales reduced to scalars.
TEST(QuantizedExperts, ModelOptFp8PerTensor) {
  constexpr std::int64_t e = 128, h = 2048, i = 768;
  const std::vector<WeightTensor> w =
      weights(quantized_config(kQwen3Moe, R"({"quant_method": "modelopt", "quant_algo": "FP8",
                     "exclude_modules": ["lm_head"]})"));
  const std::string experts = "model.layers.0.mlp.experts";
  EXPECT_EQ(bytes_of(w, experts + ".w13_weight"), e * 2 * i * h);
  EXPECT_EQ(bytes_of(w, experts + ".w13_weight_scale"), 4 * e * 2);
  EXPECT_FALSE(resident(w, experts + ".w13_weight_scale"));
  EXPECT_FALSE(resident(w, experts + ".w2_input_scale"));
  EXPECT_EQ(resident_under(w, experts), e * 3 * h * i + 4 * e + 4 * e + 4 + 4);
  EXPECT_EQ(resident_under(w, experts), 603'980'808);
}

// compressed-tensors' FP8-dynamic export (llm-compressor's FP8_DYNAMIC scheme: float weights
// per channel, float activations per token, dynamic).
const char* kFp8Dynamic = R"({"quant_method": "compressed-tensors", "format": "float-quantized",
    "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"],
    "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true},
    "input_activations": {"num_bits": 8, "type": "float", "strategy": "token",
                          "symmetric": true, "dynamic": true}}}})";

// ... and the INT8 W8A8 export alike (int weights per channel, int activations per token).
const char* kInt8Dynamic = R"({"quant_method": "compressed-tensors", "format": "int-quantized",
    "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"],
    "weights": {"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": true},
    "input_activations": {"num_bits": 8, "type": "int", "strategy": "token",
                          "symmetric": true, "dynamic": true}}}})";

// Per-tensor FP8 experts as AutoFP8 writes them (quant_method fp8, no weight_block_size): one
// byte a weight, a [E, 2] w13 scale that loading requantizes to one per expert, a [E] w2
// scale; a static checkpoint's [E] input scales become scalars. Below FP8 tensor cores vLLM
// repacks both projections for Marlin (same bytes), expands the scales to one per output
// column in bfloat16 and adds a workspace of SM count x 4 int32 entries (an A100's 108 SMs).
TEST(QuantizedExperts, Fp8PerTensorCheckpoints) {
  constexpr std::int64_t e = 128, h = 2048, i = 768;
  const std::string experts = "model.layers.0.mlp.experts";
  const std::vector<WeightTensor> dynamic =
      weights(quantized_config(kQwen3Moe, R"({"quant_method": "fp8",
          "activation_scheme": "dynamic", "ignored_layers": ["lm_head"]})"));
  EXPECT_EQ(bytes_of(dynamic, experts + ".w13_weight_scale"), 4 * e * 2);
  EXPECT_FALSE(resident(dynamic, experts + ".w13_weight_scale"));
  EXPECT_EQ(find(dynamic, experts + ".w13_input_scale"), nullptr);
  EXPECT_EQ(resident_under(dynamic, experts), e * 3 * h * i + 4 * e + 4 * e);
  EXPECT_EQ(resident_under(dynamic, experts), 603'980'800);
  const Architecture static_fp8 = quantized_config(kQwen3Moe, R"({"quant_method": "fp8",
      "activation_scheme": "static", "ignored_layers": ["lm_head"]})");
  const std::vector<WeightTensor> with_inputs = weights(static_fp8);
  EXPECT_EQ(bytes_of(with_inputs, experts + ".w2_input_scale"), 4 * e);
  EXPECT_FALSE(resident(with_inputs, experts + ".w2_input_scale"));
  EXPECT_EQ(resident_under(with_inputs, experts), 603'980'800 + 4 + 4);

  WeightRules ampere;
  ampere.fp8_marlin = true;
  ampere.device_sm_count = 108;
  Result<WeightList> marlin = rank_weights(static_fp8, {}, ampere);
  ASSERT_TRUE(marlin.ok()) << marlin.status().message();
  const std::vector<WeightTensor>& m = **marlin;
  EXPECT_FALSE(resident(m, experts + ".w13_weight"));
  EXPECT_TRUE(resident(m, experts + ".w13_weight_marlin"));
  EXPECT_FALSE(resident(m, experts + ".w13_weight_scale_max"));
  EXPECT_EQ(find(m, experts + ".w13_input_scale_max"), nullptr);
  EXPECT_EQ(resident_under(m, experts), e * 3 * h * i + 2 * e * 2 * i + 2 * e * h + 4 * 108 * 4);
  EXPECT_EQ(resident_under(m, experts), 604'899'008);
}

// Channel-wise 8-bit experts keep their loaded tensors: the FP8-dynamic export (e4m3) and
// compressed-tensors W8A8 INT8 (int8), each with a float32 scale per output row of both
// projections ([E, 2I, 1] and [E, H, 1]).
TEST(QuantizedExperts, ChannelWiseW8A8) {
  constexpr std::int64_t e = 128, h = 2048, i = 768;
  const std::string experts = "model.layers.0.mlp.experts";
  const std::int64_t layer = e * 3 * h * i + 4 * e * 2 * i + 4 * e * h;
  EXPECT_EQ(layer, 605'814'784);
  const std::vector<WeightTensor> fp8 = weights(quantized_config(kQwen3Moe, kFp8Dynamic));
  EXPECT_EQ(bytes_of(fp8, experts + ".w2_weight_scale"), 4 * e * h);
  EXPECT_EQ(resident_under(fp8, experts), layer);
  const std::vector<WeightTensor> w8a8 = weights(quantized_config(kQwen3Moe, kInt8Dynamic));
  const WeightTensor* w13 = find(w8a8, experts + ".w13_weight");
  ASSERT_NE(w13, nullptr);
  EXPECT_EQ(w13->dtype, DType::kInt8);
  EXPECT_EQ(resident_under(w8a8, experts), layer);
  // Static activations need per-tensor weight scales (compressed_tensors_moe.py, both
  // engines).
  std::string channel_static = kFp8Dynamic;
  const std::string dynamic = "\"dynamic\": true";
  channel_static.replace(channel_static.find(dynamic), dynamic.size(), "\"dynamic\": false");
  Result<WeightList> refused = rank_weights(quantized_config(kQwen3Moe, channel_static), {}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "static input quantization requires per-tensor weight scales"),
            std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace gpumem
