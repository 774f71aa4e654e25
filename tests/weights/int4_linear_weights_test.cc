// AWQ and GPTQ linear layers per rank as the engines load them (weights/linear_weights.cc):
// the checkpoint's int32-packed weights, zero points and group scales split over TP, then
// what process_weights_after_loading leaves: Marlin's repacked copies and its workspace
// (SGLang; vLLM's awq_marlin and its GPTQ Marlin kernel), or vLLM's Machete on Hopper.
// Every byte count is derived here from the published configs (support/model_configs.h).
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

Architecture from_config(const std::string& repo) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

std::vector<WeightTensor> weights(const Architecture& a, ParallelLayout l,
                                  const WeightRules& rules = {}) {
  Result<WeightList> w = rank_weights(a, l, rules);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? **w : std::vector<WeightTensor>{};
}

// The bytes a rank keeps for one int4 linear of `in` x `out` per rank, group 128: the packed
// weight (8 per int32), zero points (8 per int32) and 2-byte scales per group of 128 inputs.
std::int64_t int4_bytes(std::int64_t in, std::int64_t out) {
  return 4 * in * out / 8 + 4 * (in / 128) * (out / 8) + 2 * (in / 128) * out;
}

TEST(Int4LinearWeights, Qwen3_32B_AwqMarlinTp2) {
  // Qwen/Qwen3-32B-AWQ over 2 ranks (64/8 heads of 128 -> 32/4 per rank): qkv_proj
  // 5120 -> (32 + 2 x 4) x 128 = 5120, o_proj 4096 -> 5120, gate_up_proj 5120 -> 25600,
  // down_proj 12800 -> 5120.
  const std::vector<WeightTensor> w = weights(from_config("Qwen--Qwen3-32B-AWQ"), {.tp_size = 2});
  const std::string qkv = "model.layers.0.self_attn.qkv_proj";
  EXPECT_EQ(bytes_of(w, qkv + ".qweight"), 4 * 5120 * 640);  // [5120, 5120 / 8]: 13,107,200
  EXPECT_EQ(bytes_of(w, qkv + ".qzeros"), 4 * 40 * 640);     // [40, 640]: 102,400
  EXPECT_EQ(bytes_of(w, qkv + ".scales"), 2 * 40 * 5120);    // [40, 5120] float16: 409,600
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.o_proj.qweight"), 4 * 4096 * 640);
  EXPECT_EQ(bytes_of(w, "model.layers.0.mlp.down_proj.qzeros"), 4 * 100 * 640);
  // After loading, each Marlin layer holds its repacked copies (same sizes; the checkpoint
  // layout is freed) and an int32 workspace of one entry per SM (132 on an H100 SXM).
  EXPECT_FALSE(resident(w, qkv + ".qweight"));
  EXPECT_FALSE(resident(w, qkv + ".qzeros"));
  EXPECT_FALSE(resident(w, qkv + ".scales"));
  EXPECT_EQ(bytes_of(w, qkv + ".marlin_qweight"), 13'107'200);
  EXPECT_EQ(bytes_of(w, qkv + ".marlin_qzeros"), 102'400);
  EXPECT_EQ(bytes_of(w, qkv + ".marlin_scales"), 409'600);
  EXPECT_EQ(bytes_of(w, qkv + ".workspace"), 4 * 132);
  const std::int64_t layer = int4_bytes(5120, 5120) + int4_bytes(4096, 5120) +
                             int4_bytes(5120, 25600) + int4_bytes(12800, 5120) +
                             2 * (2 * 5120 + 2 * 128) + 4 * 4 * 132;
  EXPECT_EQ(layer, 126'681'664);
  // The embedding and lm_head stay float16, 151936 rows / 2 each; the final norm; the
  // float32 RoPE cache [40960, 128].
  const std::int64_t total = 64 * layer + 2 * 2 * 75968 * 5120 + 2 * 5120 + 4 * 40960 * 128;
  EXPECT_EQ(resident_bytes(w).value(), total);
  EXPECT_EQ(total, 9'684'432'896);
}

TEST(Int4LinearWeights, Qwen25Coder_GptqMarlinAndMachete) {
  // Qwen/Qwen2.5-Coder-1.5B-Instruct-GPTQ-Int4 on one rank: qkv_proj 1536 -> (12 + 2 x 2) x
  // 128 = 2048 with a float16 bias, o_proj 1536 -> 1536, gate_up_proj 1536 -> 17920,
  // down_proj 8960 -> 1536. Loaded: qweight [in / 8, out], g_idx [in], qzeros, scales.
  const Architecture coder = from_config("Qwen--Qwen2.5-Coder-1.5B-Instruct-GPTQ-Int4");
  const std::string qkv = "model.layers.0.self_attn.qkv_proj";
  const std::string down = "model.layers.27.mlp.down_proj";
  const std::vector<WeightTensor> marlin = weights(coder, {});
  EXPECT_EQ(bytes_of(marlin, qkv + ".qweight"), 4 * 192 * 2048);  // 1,572,864
  EXPECT_EQ(bytes_of(marlin, qkv + ".g_idx"), 4 * 1536);
  EXPECT_EQ(bytes_of(marlin, qkv + ".qzeros"), 4 * 12 * 256);
  EXPECT_EQ(bytes_of(marlin, qkv + ".scales"), 2 * 12 * 2048);
  EXPECT_EQ(bytes_of(marlin, down + ".qweight"), 4 * 1120 * 1536);
  // SGLang's gptq_marlin: symmetric without act order, g_idx and qzeros become empty.
  EXPECT_FALSE(resident(marlin, qkv + ".g_idx"));
  EXPECT_FALSE(resident(marlin, qkv + ".qzeros"));
  EXPECT_EQ(bytes_of(marlin, qkv + ".marlin_qweight"), 1'572'864);
  EXPECT_EQ(bytes_of(marlin, qkv + ".workspace"), 528);
  const auto kept = [](std::int64_t in, std::int64_t out) {
    return 4 * in * out / 8 + 2 * (in / 128) * out;
  };
  const std::int64_t layer = kept(1536, 2048) + kept(1536, 1536) + kept(1536, 17920) +
                             kept(8960, 1536) + 2 * 2048 + 2 * 2 * 1536;
  // Tied embedding [151936, 1536] float16, final norm, float32 RoPE cache [32768, 128].
  const std::int64_t rest = 2 * 151936 * 1536 + 2 * 1536 + 4 * 32768 * 128;
  EXPECT_EQ(resident_bytes(marlin).value(), 28 * (layer + 4 * 528) + rest);
  EXPECT_EQ(resident_bytes(marlin).value(), 1'159'443'200);

  // vLLM on compute capability 9.0 picks Machete: g_idx and qzeros stay, no workspace.
  const std::vector<WeightTensor> machete = weights(coder, {}, WeightRules{.gptq_machete = true});
  EXPECT_TRUE(resident(machete, qkv + ".g_idx"));
  EXPECT_TRUE(resident(machete, qkv + ".qzeros"));
  EXPECT_FALSE(resident(machete, qkv + ".qweight"));
  EXPECT_EQ(bytes_of(machete, qkv + ".machete_qweight"), 1'572'864);
  EXPECT_EQ(find(machete, qkv + ".workspace"), nullptr);
  const auto extra = [](std::int64_t in, std::int64_t out) {
    return 4 * in + 4 * (in / 128) * (out / 8);
  };
  EXPECT_EQ(resident_bytes(machete).value() - resident_bytes(marlin).value(),
            28 * (extra(1536, 2048) + extra(1536, 1536) + extra(1536, 17920) + extra(8960, 1536) -
                  4 * 528));
}

// Qwen3.6-27B quantized GPTQ 4-bit (group 128) over 2 ranks: a Gated DeltaNet layer's
// in_proj_ba (in_proj_b and in_proj_a, 48 value heads each) has 48 outputs a rank, too few for
// Marlin's 64-wide tiles. vLLM's choose_mp_linear_kernel then takes ExllamaLinearKernel when
// the activations are float16 (48 is a multiple of the pack factor 8); otherwise no kernel
// can, and the start-up fails.
TEST(Int4LinearWeights, ExllamaTakesWhatMarlinCannotInFloat16) {
  Architecture qwen = quantized_config(
      "Qwen--Qwen3.6-27B",
      R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": true, "desc_act": false})");
  qwen.vision = VisionTower{};  // the language model's layers are the subject
  const std::string ba = "model.layers.0.linear_attn.in_proj_ba";
  EXPECT_EQ(rank_weights(qwen, {.tp_size = 2}, {}).status().message(),
            ba + ": Weight output_size_per_partition = 48 and input_size_per_partition = 5120 do "
                 "not fit Marlin's 64 x 128 tiles and group size 128. Consider reducing "
                 "tensor_parallel_size.");
  const std::vector<WeightTensor> w =
      weights(qwen, {.tp_size = 2}, WeightRules{.gptq_exllama_fallback = true});
  // Loaded: qweight [5120 / 8, 48], g_idx [5120], qzeros [40, 48 / 8], scales [40, 48]; after
  // loading Exllama's own zero points, contiguous qweight and scales, and an empty g_idx.
  EXPECT_EQ(bytes_of(w, ba + ".qweight"), 4 * 640 * 48);
  EXPECT_FALSE(resident(w, ba + ".qweight"));
  EXPECT_FALSE(resident(w, ba + ".g_idx"));
  EXPECT_FALSE(resident(w, ba + ".qzeros"));
  EXPECT_EQ(bytes_of(w, ba + ".exllama_qweight"), 122'880);
  EXPECT_EQ(bytes_of(w, ba + ".exllama_qzeros"), 4 * 40 * 6);
  EXPECT_EQ(bytes_of(w, ba + ".exllama_scales"), 2 * 40 * 48);
  EXPECT_EQ(find(w, ba + ".workspace"), nullptr);
  // Layers Marlin takes are Marlin's as before.
  EXPECT_TRUE(resident(w, "model.layers.0.linear_attn.in_proj_qkvz.marlin_qweight"));
}

TEST(Int4LinearWeights, ShapesTheKernelsCannotTakeAreErrors) {
  // Over 4 ranks (3 heads each, the 2 KV heads replicated) down_proj's 8960 inputs become
  // 2240, not a multiple of the group size 128.
  const Architecture coder = from_config("Qwen--Qwen2.5-Coder-1.5B-Instruct-GPTQ-Int4");
  EXPECT_EQ(rank_weights(coder, {.tp_size = 4}, {}).status().message(),
            "model.layers.0.mlp.down_proj: The input size is not aligned with the quantized "
            "weight shape. This can be caused by too large tensor parallel size.");
  Architecture act_order = coder;
  act_order.quantization.desc_act = true;
  EXPECT_EQ(rank_weights(act_order, {}, {}).status().message(),
            "model.layers.0.self_attn.qkv_proj: GPTQ with desc_act (activation order) is not "
            "modelled");
}

TEST(Int4LinearWeights, AutoRoundRunsAsGptqMarlinOnItsBlocksOnly) {
  // An Intel AutoRound export of Mistral-Nemo-Instruct-2407 (4 bits, group 128, symmetric,
  // GPTQ layout): blocks 0-2 quantized; in them extra_config keeps layer 0's down_proj and
  // (by a regular expression, as SGLang reads it) layer 1's q, k and v in bfloat16.
  const Architecture a =
      quantized_config("mistralai--Mistral-Nemo-Instruct-2407",
                       R"({"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": true,
          "data_type": "int", "packing_format": "auto_round:auto_gptq",
          "block_name_to_quantize": "model.layers.0,model.layers.1,model.layers.2",
          "extra_config": {"model.layers.0.mlp.down_proj": {"bits": 16, "data_type": "float"},
                           "model.layers.1.self_attn.[qkv]_proj": {"bits": 16}}})");
  EXPECT_EQ(a.quantization.method, QuantMethod::kGptq);
  const std::vector<WeightTensor> w = weights(a, {});
  // qkv_proj 5120 -> 6144: qweight [5120 / 8, 6144] int32, repacked by Marlin.
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.marlin_qweight"), 4 * 640 * 6144);
  EXPECT_EQ(bytes_of(w, "model.layers.2.self_attn.qkv_proj.marlin_qweight"), 15'728'640);
  EXPECT_EQ(bytes_of(w, "model.layers.0.mlp.down_proj.weight"), 2 * 5120 * 14336);
  EXPECT_EQ(bytes_of(w, "model.layers.1.mlp.down_proj.marlin_qweight"), 4 * 1792 * 5120);
  EXPECT_EQ(bytes_of(w, "model.layers.1.self_attn.qkv_proj.weight"), 2 * 6144 * 5120);
  EXPECT_EQ(bytes_of(w, "model.layers.1.self_attn.o_proj.marlin_qweight"), 4 * 512 * 5120);
  // Outside the named blocks nothing is quantized.
  EXPECT_EQ(bytes_of(w, "model.layers.3.self_attn.qkv_proj.weight"), 62'914'560);
  EXPECT_EQ(find(w, "model.layers.3.self_attn.qkv_proj.qweight"), nullptr);
}

}  // namespace
}  // namespace gpumem
