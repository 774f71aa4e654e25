// Kimi-K2.5 (KimiK25ForConditionalGeneration) from its config: Kimi-K2-Thinking's language
// model (text_config: DeepSeek-V3's MLA and 384 experts, compressed-tensors INT4 experts)
// beside the MoonViT tower and its patch-merger projector (vision_config). Every expected value
// is derived here from the config: the tower 27 blocks of 1152 wide (16 heads of 72), MLP 4304,
// patches of 14, a 64 x 64 position table, 2 x 2 patches merged (4608 wide) into the text's
// 7168.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "support/model_configs.h"
#include "support/weight_test_models.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kKimi = "moonshotai--Kimi-K2.5";

constexpr std::int64_t kH = 1152;
constexpr std::int64_t kI = 4304;
constexpr std::int64_t kMerged = 4 * kH;
// A block: biased wqkv, wo, fc0 and fc1, two LayerNorms.
constexpr std::int64_t kBlock =
    3 * kH * kH + 3 * kH + kH * kH + kH + 2 * kI * kH + kI + kH + 4 * kH;
// The biased patch Conv2d, the position table, 27 blocks, the final LayerNorm; the projector's
// pre_norm, proj.0 over 4608 and proj.2 into 7168, all biased.
constexpr std::int64_t kTower = kH * 3 * 14 * 14 + kH + 64 * 64 * kH + 27 * kBlock + 2 * kH;
constexpr std::int64_t kProjector = 2 * kH + kMerged * kMerged + kMerged + 7168 * kMerged + 7168;

TEST(KimiK25, ParametersAndCheckpointFollowTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kKimi) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kDeepseekV3);
  EXPECT_EQ(a->vision.kind, VisionKind::kMoonVit);
  EXPECT_EQ(kTower + kProjector, 471'143'920LL);
  EXPECT_EQ(parameter_count(*a),
            parameter_count(weight_tests::model("kimi-k2-thinking")) + kTower + kProjector);
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  // The text of Kimi-K2-Thinking's files (INT4 experts: packed int32, bf16 group scales, int32
  // shapes) and the tower in bfloat16: total_size.txt.
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 595'148'192'736LL);
}

// Kimi-K2.6 and Kimi-K2.7-Code keep K2.5's architecture; their quantization configs name the
// head, the tower and the projector by regular expressions ("re:.*lm_head.*") where K2.5 names
// "lm_head". Their files sum to K2.5's bytes (each SOURCE.md: the per-tensor table of the
// checkpoint, re-summed).
TEST(KimiK25, K26AndK27CodeDeriveTheSameCheckpoint) {
  for (const std::string repo : {"moonshotai--Kimi-K2.6", "moonshotai--Kimi-K2.7-Code"}) {
    Diagnostics diags;
    Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
    ASSERT_TRUE(a.ok()) << diags.to_string();
    Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
    ASSERT_TRUE(tensors.ok()) << tensors.status().message();
    EXPECT_EQ(checkpoint_bytes(*tensors).value(), 595'148'192'736LL) << repo;
  }
}

// vLLM builds the tower unless vision_chunk, its one modality, is limited to 0 (or
// --language-model-only zeroes every limit); the language model alone is Kimi-K2-Thinking's.
TEST(KimiK25, VllmServesTheLanguageModelAloneOnlyWithoutVisionChunks) {
  const Ledger thinking = family_ledger("vllm", "kimi-k2-thinking", 8, "");
  const Ledger text = family_ledger("vllm", kKimi, 8, "    --language-model-only: true\n");
  ASSERT_TRUE(text.fits());
  EXPECT_EQ(ledger_fact(text, "weights_logical_bytes"),
            ledger_fact(thinking, "weights_logical_bytes"));
  EXPECT_EQ(ledger_fact(text, "kv_tokens"), ledger_fact(thinking, "kv_tokens"));
  const Ledger chunks =
      family_ledger("vllm", kKimi, 8, "    --limit-mm-per-prompt: '{\"vision_chunk\": 0}'\n");
  EXPECT_EQ(ledger_fact(chunks, "kv_tokens"), ledger_fact(thinking, "kv_tokens"));
  const std::string model = public_config_dir(kKimi);
  // The model key's line follows the launch arguments.
  const auto refused = [&](int line) {
    return "f.yaml:" + std::to_string(line) + ":8: " + model +
           " (KimiK25ForConditionalGeneration) is multimodal: vLLM profiles its vision encoder on "
           "dummy images, which gpumem does not model; from vLLM 0.16.0, --language-model-only or "
           "--limit-mm-per-prompt '{\"vision_chunk\": 0}' serves its language model alone, which "
           "is "
           "modelled (0 images and 0 videos do not: its tower takes vision_chunk items)\n";
  };
  EXPECT_EQ(family_errors("vllm", kKimi, "    --tensor-parallel-size: 8\n", 8), refused(7));
  EXPECT_EQ(family_errors("vllm", kKimi,
                          "    --tensor-parallel-size: 8\n    --limit-mm-per-prompt: '{\"image\": "
                          "0, \"video\": 0}'\n",
                          8),
            refused(8));
  EXPECT_EQ(family_errors("vllm", kKimi, "    --tensor-parallel-size: 8\n", 8, "0.14.0"),
            "f.yaml:4:12: KimiK25ForConditionalGeneration is not served by vLLM 0.14.0 (from "
            "0.15.0)\n");
}

// SGLang builds the tower on every launch: attention split over the 8 ranks (qkv_proj
// 3 x 1152 / 8 rows and proj's 1152 / 8 inputs, their biases), the MLP, the norms, the patch
// embedding, the position table and the projector whole. Served multimodal, its automatic
// fraction shrinks by 0.95 x (1 - 0.1 x (27 x 1152^2 / (24 x 1024^2) - 1)).
TEST(KimiK25, SglangBuildsTheTowerAndShrinksItsFraction) {
  const Ledger thinking = family_ledger("sglang", "kimi-k2-thinking", 8, "");
  const Ledger l = family_ledger("sglang", kKimi, 8, "");
  ASSERT_TRUE(l.fits());
  const std::int64_t block =
      4 * kH + 3 * kH * kH / 8 + 3 * kH / 8 + kH * kH / 8 + kH + 2 * kI * kH + kI + kH;
  const std::int64_t tower = kH * 3 * 14 * 14 + kH + 64 * 64 * kH + 27 * block + 2 * kH;
  EXPECT_EQ(2 * (tower + kProjector), 691'301'888LL);
  EXPECT_EQ(
      ledger_fact(l, "weights_logical_bytes") - ledger_fact(thinking, "weights_logical_bytes"),
      2 * (tower + kProjector));
  EXPECT_DOUBLE_EQ(mem_fraction(l), mem_fraction(thinking) * 0.909736328125);
  EXPECT_EQ(family_errors("sglang", kKimi, "    --tp-size: 8\n", 8, "0.5.8"),
            "f.yaml:4:12: KimiK25ForConditionalGeneration is not served by SGLang 0.5.8 (from "
            "0.5.9)\n");
}

// Hostile or unmodelled vision_config values are refused at their key, never read as
// something else: a merge that is not square, a position table past the bound gpumem reads
// for a tower's dimensions, and a position embedding of another kind than the checkpoint's.
TEST(KimiK25, VisionConfigValuesItDoesNotModelAreRefusedAtTheirKey) {
  const auto errors = [](const std::string& name, const std::string& from, const std::string& to) {
    return config_dir_errors(config_variant(kKimi, name, from, to));
  };
  const std::string merge =
      errors("kimi-k25-merge", "\"merge_kernel_size\": [\n      2,\n      2\n    ]",
             "\"merge_kernel_size\": [\n      2,\n      3\n    ]");
  EXPECT_NE(merge.find("'merge_kernel_size' must be a square [k, k] of at most 1024"),
            std::string::npos)
      << merge;
  const std::string rows =
      errors("kimi-k25-rows", "\"init_pos_emb_height\": 64", "\"init_pos_emb_height\": 4096");
  EXPECT_NE(rows.find("'init_pos_emb_height' 4096 is more than gpumem reads"), std::string::npos)
      << rows;
  const std::string kind = errors("kimi-k25-pos-emb", "\"pos_emb_type\": \"divided_fixed\"",
                                  "\"pos_emb_type\": \"learnable\"");
  EXPECT_NE(kind.find("MoonViT's 'pos_emb_type' 'learnable' is not modelled (the Kimi-K2.5 "
                      "checkpoint's 'divided_fixed' is)"),
            std::string::npos)
      << kind;
}

}  // namespace
}  // namespace gpumem
