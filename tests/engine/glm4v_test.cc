// GLM-4.5V (Glm4vMoeForConditionalGeneration) from its published config: GLM-4.5-Air's language
// model (text_config) beside the GLM-V ViT (transformers glm4v/modeling_glm4v.py
// Glm4vVisionModel): a biased Conv3d [1536, 3, 2, 14, 14], a 576-row position table
// ((336 / 14)^2), RMSNorms, 24 blocks of a bias-free qkv (12 heads of 128) and proj and a
// bias-free gated MLP 4,096 wide (out_hidden_size), a biased Conv2d downsample to 4,096, and
// the merger: a bias-free proj, a LayerNorm and a gated MLP of 10,944 (intermediate_size).
// SGLang serves it; vLLM's encoder profile (dummy videos of up to 600 frames) is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/config_errors.h"
#include "support/family_simulation.h"
#include "support/scratch_dir.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kRepo = "zai-org--GLM-4.5V";

Architecture glm45v() {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kRepo) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

constexpr std::int64_t kH = 1536;
constexpr std::int64_t kOut = 4096;
constexpr std::int64_t kMerger = 10944;

TEST(Glm4v, ConfigAndCheckpointFollowTheTowerLayout) {
  const Architecture a = glm45v();
  EXPECT_EQ(a.family, ArchitectureFamily::kGlm4Moe);
  EXPECT_EQ(a.vision.kind, VisionKind::kGlm4vVit);
  EXPECT_EQ(a.vision.num_patches(), 576);
  EXPECT_FALSE(a.vision.qkv_bias);
  const std::int64_t block = 2 * kH + 3 * kH * kH + kH * kH + 3 * kOut * kH;
  const std::int64_t vit = kH * 3 * 2 * 14 * 14 + kH + 576 * kH + kH + 24 * block + kH +
                           kOut * kH * 4 + kOut + kOut * kOut + 2 * kOut + 3 * kMerger * kOut;
  EXPECT_EQ(vit, 858'681'856);
  // The checkpoint's report (SOURCE.md): 107,710,933,120 parameters in 18,106 tensors, all
  // bfloat16 but the 45 float32 e_score_correction_bias vectors of 128.
  EXPECT_EQ(parameter_count(a), 107'710'933'120);
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 215'421'877'760);
  const auto named = [&](const std::string& name) {
    for (const CheckpointTensor& t : *tensors) {
      if (t.name == name) return true;
    }
    return false;
  };
  EXPECT_TRUE(named("model.visual.downsample.bias"));
  EXPECT_TRUE(named("model.visual.merger.post_projection_norm.bias"));
  EXPECT_FALSE(named("model.visual.blocks.0.attn.qkv.bias"));
  EXPECT_FALSE(named("model.visual.merger.proj.bias"));
}

TEST(Glm4v, VisionConfigErrorsNameItsKeys) {
  EXPECT_EQ(
      config_errors("architectures: [Glm4vForConditionalGeneration]\n"
                    "text_config: {hidden_size: 4096, num_hidden_layers: 2,\n"
                    "  num_attention_heads: 32, num_key_value_heads: 2,\n"
                    "  intermediate_size: 13696, vocab_size: 151552,\n"
                    "  max_position_embeddings: 65536}\n"
                    "vision_config: {image_size: 330, num_heads: 10, out_hidden_size: 4096}\n"),
      "t.json:6:29: 'image_size' 330 is not a multiple of 'patch_size' 14\n"
      "t.json:6:45: 'hidden_size' 1536 is not divisible by 'num_heads' 10\n");
}

// SGLang at TP 4 on H200s: GLM-4.5-Air's language model shards (the same dimensions) with a
// float32 RoPE cache of 65,536 rows of 64 (Air's is 131,072), and the tower as glm4v.py splits
// it: the patch embedding, position table, norms, downsample, merger.proj and its LayerNorm
// whole (44,724,736 parameters), qkv, proj, the blocks' gate_up/down and the merger's over the
// four ranks (813,957,120 / 4). adjust_mem_fraction_for_vlm: 24 layers (no num_hidden_layers)
// of 1,536: 0.95 x (1 - 0.1 x (1536^2 / 1024^2 - 1)) = 0.83125.
TEST(Glm4v, SglangLoadsTheTowerAndShrinksTheFraction) {
  const Ledger l = family_ledger("sglang", kRepo, 4, "");
  EXPECT_TRUE(l.fits());
  const Ledger air = family_ledger("sglang", "glm-4.5-air", 4, "");
  EXPECT_DOUBLE_EQ(mem_fraction(l), mem_fraction(air) * 0.83125);
  const std::int64_t vit_rank = 44'724'736 + 813'957'120 / 4;
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes") - ledger_fact(air, "weights_logical_bytes"),
            2 * vit_rank - (131072 - 65536) * 64 * 4);
  EXPECT_EQ(ledger_fact(l, "kv_cell_bytes"), ledger_fact(air, "kv_cell_bytes"));
  // The tower's 12 heads do not split over 8 ranks (SGLang pads them to 16 only from PR
  // #17122, April 2026, not modelled).
  EXPECT_NE(
      family_errors("sglang", kRepo, "    --tp-size: 8\n", 8)
          .find("the vision tower's attention heads (12) is not divisible by the tensor-parallel "
                "size 8"),
      std::string::npos);
}

// GLM-4.1V's dense form (Glm4vForConditionalGeneration; GLM-4.6V-Flash is the same class): the
// GLM-4-9B-0414 language model (40 layers of 4,096, 32 heads and 2 KV heads of 128 with q/k/v
// biases, four norms a layer, an MLP of 13,696, untied) beside the same tower with a merger of
// 13,696: 9,400,279,040 + 892,498,432 = 10,292,777,472 parameters, GLM-4.6V-Flash's published
// count (its model page and card copies, find_string ids 70957423560, 61438134306). SGLang at
// TP 2 serves it with the same 0.83125 factor on the automatic fraction.
TEST(Glm4v, TheDenseFormIsGlm4BesideTheSameTower) {
  const std::filesystem::path dir = scratch_dir() / "gpumem-glm4.1v";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json")
      << R"({"architectures": ["Glm4vForConditionalGeneration"], "model_type": "glm4v",
  "text_config": {"hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32,
    "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 13696,
    "vocab_size": 151552, "max_position_embeddings": 65536, "attention_bias": true,
    "partial_rotary_factor": 0.5, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "rope_theta": 10000, "rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}},
  "vision_config": {"depth": 24, "hidden_size": 1536, "num_heads": 12, "intermediate_size": 13696,
    "out_hidden_size": 4096, "image_size": 336, "patch_size": 14, "spatial_merge_size": 2,
    "temporal_patch_size": 2, "in_channels": 3, "attention_bias": false}})";
  Diagnostics diags;
  Result<Architecture> a = load_hf_config((dir / "config.json").string(), diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kGlm4);
  EXPECT_EQ(parameter_count(*a), 10'292'777'472);
  const Ledger l = scenario_ledger(
      "hardware: {gpu: h200, count: 2}\nengine:\n  name: sglang\n  version: 0.5.9\n  args:\n"
      "    --tp-size: 2\nmodel: " +
      dir.string() + "\n");
  EXPECT_TRUE(l.fits());
  const Ledger text_only = family_ledger("sglang", "qwen2.5-7b-instruct", 2, "");
  EXPECT_DOUBLE_EQ(mem_fraction(l), mem_fraction(text_only) * 0.83125);
}

// vLLM profiles GLM-V's encoder on a dummy video of up to 600 frames (glm4_1v.py
// Glm4vProcessingInfo), which gpumem does not model: refused by name, SGLang named instead.
TEST(Glm4v, VllmsEncoderProfileIsRefusedByName) {
  const std::string errors = family_errors("vllm", kRepo, "    --tensor-parallel-size: 4\n", 4);
  EXPECT_NE(errors.find("(Glm4vMoeForConditionalGeneration) is multimodal: vLLM profiles its "
                        "vision encoder on dummy images, which gpumem does not model; SGLang is "
                        "modelled"),
            std::string::npos)
      << errors;
}

}  // namespace
}  // namespace gpumem
