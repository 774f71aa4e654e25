// Qwen2-VL (Qwen2VLForConditionalGeneration) from Qwen2-VL-7B-Instruct's config: the Qwen2
// language model beside Qwen2-VL's ViT (transformers qwen2_vl/modeling_qwen2_vl.py): a bias-free
// Conv3d, 32 blocks of two LayerNorms, a biased qkv and proj, a QuickGELU MLP of embed_dim x
// mlp_ratio (fc1, fc2, biased), full attention in every block, and the patch merger (a
// LayerNorm, mlp.0 over 4 x 1280 and mlp.2 to the language model's 3,584). Its vision_config
// names the tower's width embed_dim and the merger's output hidden_size.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "engine/vllm/encoder_profile.h"
#include "support/config_errors.h"
#include "support/family_simulation.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kRepo = "Qwen--Qwen2-VL-7B-Instruct";

Architecture qwen2_vl() {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kRepo) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

constexpr std::int64_t kWidth = 1280;
constexpr std::int64_t kMlp = 5120;
constexpr std::int64_t kMerged = 4 * kWidth;
// Two LayerNorms, qkv and proj, fc1 and fc2, all biased.
constexpr std::int64_t kBlock = 4 * kWidth + 3 * kWidth * kWidth + 3 * kWidth + kWidth * kWidth +
                                kWidth + kMlp * kWidth + kMlp + kWidth * kMlp + kWidth;
constexpr std::int64_t kVit = kWidth * 3 * 2 * 14 * 14 + 32 * kBlock + 2 * kWidth +
                              kMerged * kMerged + kMerged + 3584 * kMerged + 3584;

TEST(Qwen2Vl, ConfigAndCheckpointFollowTheTowerLayout) {
  const Architecture a = qwen2_vl();
  EXPECT_EQ(a.family, ArchitectureFamily::kQwen2);
  EXPECT_EQ(a.vision.kind, VisionKind::kQwen2Vit);
  EXPECT_EQ(a.vision.hidden_size, 1280);
  EXPECT_EQ(a.vision.intermediate_size, 5120);
  EXPECT_EQ(a.vision.out_hidden_size, 3584);
  EXPECT_EQ(kVit, 675'759'104);
  // The checkpoint's 8,291,375,616 parameters, bfloat16: its index's total_size
  // 16,582,751,232 (SOURCE.md).
  EXPECT_EQ(parameter_count(a), 8'291'375'616);
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 16'582'751'232);
  const auto named = [&](const std::string& name) {
    for (const CheckpointTensor& t : *tensors) {
      if (t.name == name) return true;
    }
    return false;
  };
  EXPECT_TRUE(named("visual.blocks.31.mlp.fc2.bias"));
  EXPECT_TRUE(named("visual.blocks.0.norm1.bias"));
  EXPECT_TRUE(named("visual.merger.ln_q.bias"));
  EXPECT_FALSE(named("visual.blocks.0.mlp.gate_proj.weight"));
  EXPECT_FALSE(named("visual.patch_embed.proj.bias"));
}

TEST(Qwen2Vl, VisionConfigErrorsNameItsKeys) {
  EXPECT_EQ(config_errors("architectures: [Qwen2VLForConditionalGeneration]\n"
                          "hidden_size: 3584\n"
                          "num_hidden_layers: 2\n"
                          "num_attention_heads: 28\n"
                          "num_key_value_heads: 4\n"
                          "intermediate_size: 18944\n"
                          "vocab_size: 152064\n"
                          "max_position_embeddings: 32768\n"
                          "vision_config: {embed_dim: 1280, num_heads: 24, hidden_size: 4096}\n"),
            "t.json:9:45: 'embed_dim' 1280 is not divisible by 'num_heads' 24\n"
            "t.json:9:62: 'hidden_size' 4096 differs from the language model's 'hidden_size' "
            "3584\n");
  EXPECT_EQ(
      config_errors("architectures: [Qwen2VLForConditionalGeneration]\n"
                    "hidden_size: 3584\n"
                    "num_hidden_layers: 2\n"
                    "num_attention_heads: 28\n"
                    "intermediate_size: 18944\n"
                    "vocab_size: 152064\n"
                    "max_position_embeddings: 32768\n"
                    "vision_config: {embed_dim: 65536, mlp_ratio: 4096, hidden_size: 3584}\n"),
      "t.json:8:46: 'embed_dim' x 'mlp_ratio' is 268435456, more than 67108864\n");
  EXPECT_EQ(config_errors("architectures: [Qwen2VLForConditionalGeneration]\n"
                          "hidden_size: 3584\n"
                          "num_hidden_layers: 2\n"
                          "num_attention_heads: 28\n"
                          "intermediate_size: 18944\n"
                          "vocab_size: 152064\n"
                          "max_position_embeddings: 32768\n"
                          "vision_config: {embed_dim: 1280, mlp_ratio: -1.5, hidden_size: 3584}\n"),
            "t.json:8:45: 'mlp_ratio' must make an MLP at least 1 wide\n");
}

// vLLM and transformers take int(embed_dim x mlp_ratio): a float ratio is read as written.
TEST(Qwen2Vl, AFloatMlpRatioIsTruncatedAsTheEnginesDo) {
  const std::string dir =
      config_variant(kRepo, "qwen2-vl-float-ratio", "\"mlp_ratio\": 4", "\"mlp_ratio\": 2.6667");
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(dir + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->vision.intermediate_size, 3413);  // int(1280 x 2.6667) = int(3413.376)
}

// SGLang at TP 2: the language model's shards beside the tower, split as qwen2_vl.py splits it
// (qkv, fc1 and merger.mlp.0 by rows, proj, fc2 and merger.mlp.2 by columns; norms and the
// patch embedding whole), and the float32 inv_freq of 80 / 4 entries. adjust_mem_fraction_for_vlm
// reads vision_config.hidden_size, here the language model's 3,584, and 24 layers for want of
// num_hidden_layers: 0.95 x clamp(1 - 0.1 x (3584^2 / 1024^2 - 1), 0.8, 1.05) = 0.76.
TEST(Qwen2Vl, SglangLoadsTheTowerAndShrinksTheFraction) {
  const Ledger l = family_ledger("sglang", kRepo, 2, "");
  EXPECT_TRUE(l.fits());
  // The same language model as Qwen2.5-7B-Instruct's but for its 32,768 positions (the RoPE
  // cache, float32 x 128) against 32,768: equal, so the difference is the tower's shard.
  const Ledger qwen2 = family_ledger("sglang", "qwen2.5-7b-instruct", 2, "");
  EXPECT_DOUBLE_EQ(mem_fraction(l), mem_fraction(qwen2) * 0.76);
  const std::int64_t per_rank_vit = kWidth * 3 * 2 * 14 * 14 +
                                    32 * (4 * kWidth + kWidth * 1920 + 1920 + 640 * kWidth +
                                          kWidth + 2560 * kWidth + 2560 + kWidth * 2560 + kWidth) +
                                    2 * kWidth + 2560 * kMerged + 2560 + 3584 * 2560 + 3584;
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes") - ledger_fact(qwen2, "weights_logical_bytes"),
            2 * per_rank_vit + 20 * 4);
  EXPECT_EQ(ledger_fact(l, "kv_cell_bytes"), 4 / 2 * (128 + 128) * 28 * 2);
}

// vLLM profiles Qwen2-VL's encoder as Qwen2.5-VL's (qwen2_5_vl.py's processing info subclasses
// qwen2_vl.py's): the 3,584 x 3,584 dummy image of 16,384 merged patches (max_pixels
// 12,845,056), or a video of 14 frames where it has more tokens; with 0 images and 0 videos it
// builds no tower.
TEST(Qwen2Vl, VllmProfilesTheDummyImageAndSkipsTheTowerWithoutMedia) {
  const Architecture a = qwen2_vl();
  EXPECT_EQ(vllm::qwen_vl_max_image_tokens(a.vision), 16384);
  const Ledger mm = family_ledger("vllm", kRepo, 1, "    --max-model-len: 8192\n");
  const Ledger text = family_ledger(
      "vllm", kRepo, 1,
      "    --max-model-len: 8192\n    --limit-mm-per-prompt: '{\"image\": 0, \"video\": 0}'\n");
  EXPECT_EQ(ledger_fact(mm, "weights_logical_bytes") - ledger_fact(text, "weights_logical_bytes"),
            2 * kVit + 20 * 4);
  // One image, 65,536 patches, u = 65,536 x 1,280 x 2 B. Held through the blocks: the bf16
  // pixel values (65,536 x 1,176 x 2 B, 147 MiB in a new segment whose 1 MiB remainder stays
  // in the block) and the rotary tables (2 x 65,536 x 40 x 2 B). The peak is the first block's
  // attention at its projection: the stream, norm1, qkv (3u), the q/k copy and its rotated copy
  // (2u each), the attention output and its contiguous copy: 11u; the MLP's moment (the stream,
  // norm2, fc1 and QuickGELU's 4u each) is 10u. Held after it: the pixel values and the
  // merger's output (16,384 x 3,584 x 2 B).
  const std::int64_t u = 65536LL * 1280 * 2;
  const std::int64_t pixels = 65536LL * 1176 * 2 + (1 << 20);
  const std::int64_t rotary = 2 * 65536LL * 40 * 2;
  EXPECT_EQ(ledger_fact(mm, "encoder_items"), 1);
  EXPECT_EQ(ledger_fact(mm, "encoder_peak_bytes"), pixels + rotary + 11 * u);
  EXPECT_EQ(ledger_fact(mm, "encoder_held_bytes"), pixels + 16384LL * 3584 * 2);
}

}  // namespace
}  // namespace gpumem
