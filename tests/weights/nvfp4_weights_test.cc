// NVFP4 checkpoints per rank (weights/linear_weights.cc and moe_weights.cc add_nvfp4): E2M1
// pairs in uint8, an e4m3 scale per 16 input columns and float32 global scales, then what
// each engine keeps after loading (WeightRules::nvfp4_layout): the swizzled scales in place
// of the loaded ones (vLLM from 0.10.2 on Blackwell), beside them (SGLang's ModelOpt path,
// vLLM 0.10.1), or Marlin's repacked copies (vLLM before Blackwell). The models are the
// published bfloat16 configs (support/model_configs.h) with an NVFP4 quantization block
// added, as ModelOpt and llm-compressor write it; every byte count is derived here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "support/quantized_config.h"
#include "support/weight_test_models.h"
#include "weights/checkpoint_tensors.h"
#include "weights/rank_weights.h"

namespace gpumem {
namespace {

using weight_tests::bytes_of;
using weight_tests::find;
using weight_tests::resident;

const std::string kNemo = "mistralai--Mistral-Nemo-Instruct-2407";

// The quantization blocks as ModelOpt's and llm-compressor's exports write them.
const char* const kModelOpt = R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
  "kv_cache_quant_algo": "FP8", "group_size": 16, "exclude_modules": ["lm_head"]})";
const char* const kCompressedTensors = R"({"quant_method": "compressed-tensors",
  "format": "nvfp4-pack-quantized", "ignore": ["lm_head"], "config_groups": {"group_0": {
  "targets": ["Linear"],
  "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16},
  "input_activations": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
                        "group_size": 16}}}})";
const char* const kCompressedTensorsA16 = R"({"quant_method": "compressed-tensors",
  "format": "nvfp4-pack-quantized", "ignore": ["lm_head"], "config_groups": {"group_0": {
  "targets": ["Linear"],
  "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16}}}})";

std::vector<WeightTensor> weights(const Architecture& a, ParallelLayout l, Nvfp4Layout layout) {
  Result<WeightList> w = rank_weights(a, l, WeightRules{.nvfp4_layout = layout});
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? **w : std::vector<WeightTensor>{};
}

std::int64_t total(const std::vector<WeightTensor>& ts) { return resident_bytes(ts).value(); }

TEST(Nvfp4Config, ModelOptAndCompressedTensorsBlocks) {
  const Architecture modelopt = quantized_config(kNemo, kModelOpt);
  EXPECT_EQ(modelopt.quantization.method, QuantMethod::kModelOptNvfp4);
  EXPECT_EQ(modelopt.quantization.group_size, 16);
  EXPECT_TRUE(modelopt.quantization.activation_scales);
  EXPECT_TRUE(modelopt.quantization.kv_cache_fp8);
  EXPECT_FALSE(modelopt.quantization.converts("lm_head"));
  EXPECT_TRUE(modelopt.quantization.converts("model.layers.0.mlp.down_proj"));
  const Architecture ct = quantized_config(kNemo, kCompressedTensors);
  EXPECT_EQ(ct.quantization.method, QuantMethod::kCompressedTensorsNvfp4);
  EXPECT_TRUE(ct.quantization.activation_scales);
  EXPECT_FALSE(ct.quantization.kv_cache_fp8);
  // Without input_activations the checkpoint is weight-only (NVFP4A16).
  EXPECT_FALSE(quantized_config(kNemo, kCompressedTensorsA16).quantization.activation_scales);
}

TEST(Nvfp4Weights, MistralNemo_EveryLayoutTp1) {
  // Mistral-Nemo-Instruct-2407: qkv_proj 5120 -> 6144 (32 + 2 x 8 heads of 128), o_proj
  // 4096 -> 5120, gate_up_proj 5120 -> 28672, down_proj 14336 -> 5120; all aligned to 128
  // rows and 4 scale columns, so a swizzled copy is as large as the loaded scales.
  const Architecture a = quantized_config(kNemo, kModelOpt);
  const std::string qkv = "model.layers.0.self_attn.qkv_proj";
  const std::vector<WeightTensor> cutlass = weights(a, {}, Nvfp4Layout::kSwizzledScales);
  EXPECT_EQ(bytes_of(cutlass, qkv + ".weight"), 6144 * 5120 / 2);  // 15,728,640
  EXPECT_EQ(bytes_of(cutlass, qkv + ".weight_scale"), 6144 * 5120 / 16);
  EXPECT_EQ(bytes_of(cutlass, qkv + ".weight_scale_2"), 4 * 3);  // one per q, k, v
  EXPECT_EQ(bytes_of(cutlass, qkv + ".input_scale"), 4 * 3);
  EXPECT_TRUE(resident(cutlass, qkv + ".weight"));
  EXPECT_FALSE(resident(cutlass, qkv + ".weight_scale"));
  EXPECT_FALSE(resident(cutlass, qkv + ".weight_scale_2"));
  EXPECT_FALSE(resident(cutlass, qkv + ".input_scale"));
  EXPECT_EQ(bytes_of(cutlass, qkv + ".weight_scale_swizzled"), 1'966'080);
  EXPECT_EQ(bytes_of(cutlass, qkv + ".alpha"), 4);
  EXPECT_EQ(find(cutlass, qkv + ".weight_padded"), nullptr);
  EXPECT_EQ(bytes_of(cutlass, "lm_head.weight"), 2 * 131072 * 5120);  // excluded: bfloat16

  // Every linear keeps 9/16 of a byte per weight and two float32 scalars (alpha and the
  // inverse input scale), where bfloat16 kept 2 bytes.
  const std::int64_t weights_per_layer = 6144 * 5120 + 4096 * 5120 + 28672 * 5120 + 14336 * 5120;
  EXPECT_EQ(weights_per_layer, 272'629'760);
  const std::int64_t nvfp4_layer = weights_per_layer * 9 / 16 + 4 * 8;
  EXPECT_EQ(nvfp4_layer, 153'354'272);
  const std::int64_t dense =
      total(weights(quantized_config(kNemo, ""), {}, Nvfp4Layout::kSwizzledScales));
  EXPECT_EQ(total(cutlass), dense - 40 * (2 * weights_per_layer - nvfp4_layer));
  EXPECT_EQ(dense - total(cutlass), 15'676'209'920);

  // Kept beside: the loaded scales (1/16 byte per weight) and the per-part global scales
  // (3 + 1 + 2 + 1 parts, weight and input) stay too.
  const std::vector<WeightTensor> beside = weights(a, {}, Nvfp4Layout::kSwizzledBesideRaw);
  EXPECT_TRUE(resident(beside, qkv + ".weight_scale"));
  EXPECT_EQ(total(beside) - total(cutlass), 40 * (weights_per_layer / 16 + 2 * 4 * 7));
  EXPECT_EQ(total(beside) - total(cutlass), 681'576'640);

  // Marlin: the same weight and scale bytes repacked, one global scale and a workspace of
  // one int32 per SM (132) per linear instead of the two scalars.
  const std::vector<WeightTensor> marlin = weights(a, {}, Nvfp4Layout::kMarlin);
  EXPECT_FALSE(resident(marlin, qkv + ".weight"));
  EXPECT_EQ(bytes_of(marlin, qkv + ".marlin_weight"), 15'728'640);
  EXPECT_EQ(bytes_of(marlin, qkv + ".marlin_weight_scale"), 1'966'080);
  EXPECT_EQ(bytes_of(marlin, qkv + ".workspace"), 4 * 132);
  EXPECT_EQ(total(marlin) - total(cutlass), 40 * 4 * (4 * 132 + 4 - 8));
}

TEST(Nvfp4Weights, Qwen3_30B_A3B_ExpertsPadTheirSwizzledScalesAtTp8) {
  // Qwen3-30B-A3B: 128 experts of hidden 2048 and intermediate 768 in 48 layers. At TP 8 a
  // rank holds 96 intermediate columns of every expert: w13 is [128, 192, 1024] and w2
  // [128, 2048, 48] in uint8, their scales [128, 192, 128] and [128, 2048, 6].
  const Architecture a = quantized_config("Qwen--Qwen3-30B-A3B-Instruct-2507", kCompressedTensors);
  const std::string e = "model.layers.0.mlp.experts";
  const std::vector<WeightTensor> cutlass =
      weights(a, {.tp_size = 8}, Nvfp4Layout::kSwizzledScales);
  EXPECT_EQ(bytes_of(cutlass, e + ".w13_weight_packed"), 128 * 192 * 1024);  // 25,165,824
  EXPECT_EQ(bytes_of(cutlass, e + ".w2_weight_packed"), 128 * 2048 * 48);    // 12,582,912
  EXPECT_EQ(bytes_of(cutlass, e + ".w13_weight_scale"), 128 * 192 * 128);
  EXPECT_EQ(bytes_of(cutlass, e + ".w2_weight_scale"), 128 * 2048 * 6);
  EXPECT_EQ(bytes_of(cutlass, e + ".w13_weight_global_scale"), 4 * 128 * 2);
  EXPECT_EQ(bytes_of(cutlass, e + ".w13_input_global_scale"), 4 * 128 * 2);
  // Swizzled, the rows pad to 128 (192 -> 256) and the scale columns to 4 (6 -> 8).
  EXPECT_EQ(bytes_of(cutlass, e + ".w13_blockscale_swizzled"), 128 * 256 * 128);  // 4,194,304
  EXPECT_EQ(bytes_of(cutlass, e + ".w2_blockscale_swizzled"), 128 * 2048 * 8);    // 2,097,152
  EXPECT_FALSE(resident(cutlass, e + ".w13_weight_scale"));
  EXPECT_FALSE(resident(cutlass, e + ".w13_weight_global_scale"));
  EXPECT_EQ(bytes_of(cutlass, e + ".w13_alpha"), 4 * 128);

  // Marlin keeps the loaded layout's sizes (192 rows are a multiple of 64) and adds a
  // workspace of 4 int32 per SM; the input scales go.
  const std::vector<WeightTensor> marlin = weights(a, {.tp_size = 8}, Nvfp4Layout::kMarlin);
  EXPECT_TRUE(resident(marlin, e + ".w13_weight_scale"));
  EXPECT_FALSE(resident(marlin, e + ".w13_input_global_scale"));
  EXPECT_EQ(bytes_of(marlin, e + ".workspace"), 4 * 4 * 132);
  // Per layer the swizzled scales' padding; the experts' float32 scales (CUTLASS: w13_alpha,
  // w2's global scale and both input scales; Marlin: both global scales and the
  // workspace); and the attention's qkv_proj and o_proj (CUTLASS: two scalars each; Marlin:
  // a global scale and a workspace of 132 int32 each).
  const std::int64_t swizzle_pad = (128 * 256 * 128 - 128 * 192 * 128) + 128 * 2048 * 2;
  const std::int64_t cutlass_scales = 4 * 128 + 4 * 128 + 4 * 128 * 2 + 4 * 128 + 2 * 8;
  const std::int64_t marlin_scales = 4 * 128 * 2 + 4 * 128 + 4 * 4 * 132 + 2 * (4 + 4 * 132);
  EXPECT_EQ(total(cutlass) - total(marlin), 48 * (swizzle_pad + cutlass_scales - marlin_scales));
  EXPECT_EQ(total(cutlass) - total(marlin), 75'394'944);
}

TEST(Nvfp4Checkpoint, TensorsAsTheExportersWriteThem) {
  // Per checkpoint linear: E2M1 pairs [out, in / 2] in uint8, e4m3 scales [out, in / 16],
  // float32 global scales (scalars in ModelOpt's export, one-element tensors in
  // compressed-tensors'); lm_head excluded stays bfloat16.
  Result<std::vector<CheckpointTensor>> modelopt =
      checkpoint_tensors(quantized_config(kNemo, kModelOpt));
  ASSERT_TRUE(modelopt.ok()) << modelopt.status().message();
  const auto tensor = [](const std::vector<CheckpointTensor>& ts, const std::string& name) {
    for (const CheckpointTensor& t : ts) {
      if (t.name == name) return t;
    }
    ADD_FAILURE() << name;
    return CheckpointTensor{};
  };
  const std::string q = "model.layers.0.self_attn.q_proj";
  const CheckpointTensor weight = tensor(*modelopt, q + ".weight");
  EXPECT_EQ(weight.shape, (std::vector<std::int64_t>{4096, 2560}));
  EXPECT_EQ(weight.dtype, "U8");
  EXPECT_EQ(weight.bytes.value(), 10'485'760);
  const CheckpointTensor scale = tensor(*modelopt, q + ".weight_scale");
  EXPECT_EQ(scale.shape, (std::vector<std::int64_t>{4096, 320}));
  EXPECT_EQ(scale.dtype, "F8_E4M3");
  EXPECT_EQ(tensor(*modelopt, q + ".weight_scale_2").shape, std::vector<std::int64_t>{});
  EXPECT_EQ(tensor(*modelopt, q + ".input_scale").bytes.value(), 4);
  EXPECT_EQ(tensor(*modelopt, "lm_head.weight").dtype, "BF16");
  Result<std::vector<CheckpointTensor>> ct =
      checkpoint_tensors(quantized_config(kNemo, kCompressedTensors));
  ASSERT_TRUE(ct.ok()) << ct.status().message();
  EXPECT_EQ(tensor(*ct, q + ".weight_packed").bytes.value(), 10'485'760);
  EXPECT_EQ(tensor(*ct, q + ".weight_global_scale").shape, std::vector<std::int64_t>{1});
  EXPECT_EQ(tensor(*ct, q + ".input_global_scale").shape, std::vector<std::int64_t>{1});
  // The whole checkpoint: 40 layers of 272,629,760 quantized weights at 9/16 byte, 7
  // linears with two 4-byte globals each, the rest as the bfloat16 checkpoint has it.
  Result<std::vector<CheckpointTensor>> bf16 = checkpoint_tensors(quantized_config(kNemo, ""));
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(checkpoint_bytes(*bf16).value() - checkpoint_bytes(*modelopt).value(),
            std::int64_t{40} *
                (2 * std::int64_t{272'629'760} - std::int64_t{272'629'760} * 9 / 16 - 7 * 8));
  EXPECT_EQ(checkpoint_bytes(*bf16).value() - checkpoint_bytes(*modelopt).value(), 15'676'208'960);
}

}  // namespace
}  // namespace gpumem
