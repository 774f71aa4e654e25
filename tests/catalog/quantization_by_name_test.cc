// The quantization a checkpoint's name states (catalog/quantization_by_name.h): which words
// name which quantization_config, and the base architecture read with it.
#include "catalog/quantization_by_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/test_catalogs.h"

namespace gpumem {
namespace {

std::vector<std::string> labels(const std::string& name) {
  std::vector<std::string> out;
  for (const NamedQuantization& q : quantizations_in_name(name)) out.push_back(q.label);
  return out;
}

Architecture base(const std::string& slug) {
  Diagnostics diags;
  Result<ModelEntry> e = test_catalogs().models.find(slug, diags);
  EXPECT_TRUE(e.ok()) << diags.to_string();
  return e.ok() ? e->architecture : Architecture{};
}

TEST(QuantizationByName, EachWordNamesItsExportsCommonConfig) {
  using V = std::vector<std::string>;
  EXPECT_EQ(labels("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4"),
            V{"GPTQ 4-bit, group 128, symmetric, no activation order"});
  EXPECT_EQ(labels("Qwen2.5-7B-Instruct-GPTQ-Int8"),
            V{"GPTQ 8-bit, group 128, symmetric, no activation order"});
  EXPECT_EQ(labels("gaunernst/gemma-3-27b-it-int4-awq"),
            V{"AWQ 4-bit, group 128, zero points (AutoAWQ's defaults)"});
  EXPECT_EQ(labels("/models/cognitivecomputations_DeepSeek-V3-0324-AWQ/"),
            V{"AWQ 4-bit, group 128, zero points (AutoAWQ's defaults)"});
  EXPECT_EQ(labels("nytopop/Qwen3-30B-A3B.w4a16"),
            V{"compressed-tensors W4A16, group 128 (llm-compressor's W4A16 scheme)"});
  EXPECT_EQ(labels("neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8"),
            V{"compressed-tensors W8A8 INT8 per channel (llm-compressor's W8A8 scheme)"});
  EXPECT_EQ(labels("~/.cache/huggingface/qwen3.6-27b-autoround-int4"),
            V{"AutoRound 4-bit, group 128 (AutoRound's defaults)"});
  EXPECT_EQ(labels("qwen3.6-35b-a3b-nvfp4"),
            V{"ModelOpt NVFP4, groups of 16, the head kept (ModelOpt's defaults)"});
  EXPECT_EQ(labels("Qwen/Qwen3-8B-FP8"),
            (V{"FP8 in 128 x 128 blocks (Qwen's and DeepSeek's FP8 checkpoints)",
               "FP8 per output channel (llm-compressor's FP8-Dynamic scheme)"}));
  EXPECT_EQ(labels("RedHatAI/Qwen3-8B-FP8-dynamic"),
            (V{"FP8 per output channel (llm-compressor's FP8-Dynamic scheme)",
               "FP8 in 128 x 128 blocks (Qwen's and DeepSeek's FP8 checkpoints)"}));
  EXPECT_EQ(labels("unsloth/Llama-3.1-8B-Instruct-bnb-4bit"),
            V{"bitsandbytes nf4 with double quantization (Unsloth's bnb-4bit exports)"});
  // No quantization word: a fine-tune, a revision, a version number.
  EXPECT_TRUE(labels("moonshotai/Kimi-K2-Instruct-0905").empty());
  EXPECT_TRUE(labels("Qwen2.5-72B-Instruct").empty());
  EXPECT_TRUE(labels("my-awqward-finetune").empty());
}

TEST(QuantizationByName, TheBaseIsReadWithTheStatedConfig) {
  const Architecture qwen = base("qwen2.5-72b-instruct");
  const auto read = [&](const std::string& name, size_t i = 0) {
    const std::vector<NamedQuantization> q = quantizations_in_name(name);
    EXPECT_GT(q.size(), i) << name;
    Result<Architecture> a = with_named_quantization(qwen, q.at(i));
    EXPECT_TRUE(a.ok()) << a.status().message();
    return a.ok() ? a->quantization : Quantization{};
  };
  const Quantization gptq = read("Qwen2.5-72B-Instruct-GPTQ-Int4");
  EXPECT_EQ(gptq.method, QuantMethod::kGptq);
  EXPECT_EQ(gptq.num_bits, 4);
  EXPECT_EQ(gptq.group_size, 128);
  EXPECT_FALSE(gptq.desc_act);
  const Quantization awq = read("Qwen2.5-72B-Instruct-AWQ");
  EXPECT_EQ(awq.method, QuantMethod::kAwq);
  EXPECT_EQ(awq.group_size, 128);
  const Quantization w4a16 = read("Qwen2.5-72B-Instruct.w4a16");
  EXPECT_EQ(w4a16.method, QuantMethod::kCompressedTensorsWna16);
  EXPECT_EQ(w4a16.num_bits, 4);
  EXPECT_EQ(w4a16.group_size, 128);
  EXPECT_TRUE(w4a16.not_converted.matches("lm_head"));
  EXPECT_FALSE(w4a16.not_converted.matches("model.layers.0.mlp.down_proj"));
  const Quantization w8a8 = read("Qwen2.5-72B-Instruct-W8A8");
  EXPECT_EQ(w8a8.method, QuantMethod::kCompressedTensorsW8a8);
  EXPECT_FALSE(w8a8.float_weights);
  const Quantization block = read("Qwen2.5-72B-Instruct-FP8");
  EXPECT_EQ(block.method, QuantMethod::kFp8Block);
  EXPECT_EQ(block.block_n, 128);
  EXPECT_EQ(block.block_k, 128);
  const Quantization channel = read("Qwen2.5-72B-Instruct-FP8", 1);
  EXPECT_EQ(channel.method, QuantMethod::kCompressedTensorsW8a8);
  EXPECT_TRUE(channel.float_weights);
  EXPECT_FALSE(channel.per_tensor_scale);
  const Quantization nvfp4 = read("Qwen2.5-72B-Instruct-NVFP4");
  EXPECT_EQ(nvfp4.method, QuantMethod::kModelOptNvfp4);
  EXPECT_EQ(nvfp4.group_size, 16);
  const Quantization bnb = read("Qwen2.5-72B-Instruct-bnb-4bit");
  EXPECT_EQ(bnb.method, QuantMethod::kBitsAndBytes4);
  EXPECT_TRUE(bnb.double_quant);
  const Quantization autoround = read("Qwen2.5-72B-Instruct-AutoRound");
  EXPECT_EQ(autoround.method, QuantMethod::kGptq);
  EXPECT_TRUE(autoround.auto_round);
}

TEST(QuantizationByName, AVisionTowerStaysInTheModelDtype) {
  const Architecture vl = base("qwen2.5-vl-7b-instruct");
  ASSERT_TRUE(vl.vision.present());
  const Result<Architecture> a =
      with_named_quantization(vl, quantizations_in_name("Qwen2.5-VL-7B-Instruct-AWQ").front());
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_FALSE(a->quantization.converts("visual.blocks.0.attn.qkv"));
  EXPECT_FALSE(a->quantization.converts("model.visual.merger.mlp.0"));
  EXPECT_FALSE(a->quantization.converts("multi_modal_projector.linear_1"));
  EXPECT_TRUE(a->quantization.converts("model.layers.0.self_attn.q_proj"));
  // A text model's names are all converted.
  const Result<Architecture> text = with_named_quantization(
      base("qwen2.5-72b-instruct"), quantizations_in_name("Qwen2.5-72B-Instruct-AWQ").front());
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(text->quantization.not_converted.empty());
}

TEST(QuantizationByName, TheNamedQuantizationReplacesTheBases) {
  // DeepSeek-V3 ships block FP8 that keeps some modules unquantized; an AWQ export of it is made
  // from the dequantized weights.
  const Architecture v3 = base("deepseek-v3");
  ASSERT_EQ(v3.quantization.method, QuantMethod::kFp8Block);
  const Result<Architecture> a = with_named_quantization(
      v3, quantizations_in_name("cognitivecomputations/DeepSeek-V3-0324-AWQ").front());
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->quantization.method, QuantMethod::kAwq);
  EXPECT_EQ(a->quantization.block_n, 0);
  EXPECT_TRUE(a->quantization.not_converted.empty());
}

}  // namespace
}  // namespace gpumem
