// Gemma 4 (Gemma4ForConditionalGeneration) from the 31B's and the 26B-A4B's configs: sliding
// layers of 256-wide heads, every sixth layer full with 512-wide heads and (attention_k_eq_v)
// fewer KV heads whose V is loaded from k_proj, the 26B's experts beside the dense MLP, the
// vision tower; vLLM serving the language model alone or profiling the tower on dummy videos. Every
// expected value is derived here from the configs: 31B hidden 5376, 60 layers of 32 heads, 16
// sliding / 4 full KV heads, MLP 21504; 26B hidden 2816, 30 layers of 16 heads, 8 / 2 KV heads, MLP
// 2112, 128 experts of 704; both a vocabulary of 262,144 and a context of 262,144.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "support/model_configs.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string k31b = "google--gemma-4-31B-it";
const std::string k26b = "google--gemma-4-26B-A4B";

// One text layer's parameters: q, k, v (none on a full layer), o, q/k norms per head, the
// dense MLP, four norms and layer_scalar; the 26B's experts, router and three more norms.
constexpr std::int64_t layer(std::int64_t h, std::int64_t heads, std::int64_t kv_heads,
                             std::int64_t head, bool full, std::int64_t mlp, std::int64_t experts,
                             std::int64_t expert_width) {
  const std::int64_t attention =
      h * heads * head + (full ? 1 : 2) * h * kv_heads * head + heads * head * h + 2 * head;
  const std::int64_t moe =
      experts == 0 ? 0 : experts * 3 * expert_width * h + experts * h + h + experts + 3 * h;
  return attention + 3 * h * mlp + 4 * h + 1 + moe;
}
// The vision tower (27 layers of 1152, MLP 4304, 16 heads of 72, patches of 16, two position
// axes of 10,240 rows, std_bias and std_scale) and embed_vision's projection into `text`.
constexpr std::int64_t vision(std::int64_t text) {
  const std::int64_t h = 1152;
  return h * 3 * 16 * 16 + 2 * 10240 * h + 27 * (4 * h * h + 2 * 72 + 3 * 4304 * h + 4 * h) +
         2 * h + text * h;
}
constexpr std::int64_t k31bText = 262144 * 5376 +
                                  50 * layer(5376, 32, 16, 256, false, 21504, 0, 0) +
                                  10 * layer(5376, 32, 4, 512, true, 21504, 0, 0) + 5376;
constexpr std::int64_t k26bText = 262144 * 2816 +
                                  25 * layer(2816, 16, 8, 256, false, 2112, 128, 704) +
                                  5 * layer(2816, 16, 2, 512, true, 2112, 128, 704) + 2816;
// vLLM's cos/sin caches, bfloat16: sliding layers 262,144 x 256, full layers 262,144 x 512
// (Gemma4RotaryEmbedding is as wide as the head).
constexpr std::int64_t kRopeBytes = 262144 * (256 + 512) * 2;

TEST(Gemma4, ParametersAndCheckpointsFollowTheConfigs) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(k31b) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kGemma4);
  EXPECT_TRUE(a->is_sliding_layer(4));
  EXPECT_FALSE(a->is_sliding_layer(5));
  EXPECT_EQ(a->layer_head_dim(4), 256);
  EXPECT_EQ(a->layer_head_dim(5), 512);
  EXPECT_EQ(a->layer_kv_heads(4), 16);
  EXPECT_EQ(a->layer_kv_heads(5), 4);
  EXPECT_EQ(parameter_count(*a), k31bText + vision(5376));
  EXPECT_EQ(k31bText + vision(5376), 31'273'088'876LL);  // the checkpoint's tensor table
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 2 * (k31bText + vision(5376)));

  Result<Architecture> moe = load_hf_config(public_config_dir(k26b) + "/config.json", diags);
  ASSERT_TRUE(moe.ok()) << diags.to_string();
  EXPECT_TRUE(moe->moe_beside_mlp);
  EXPECT_EQ(parameter_count(*moe), k26bText + vision(2816));
  EXPECT_EQ(k26bText + vision(2816), 25'805'936'206LL);
  Result<std::vector<CheckpointTensor>> moe_tensors = checkpoint_tensors(*moe);
  ASSERT_TRUE(moe_tensors.ok()) << moe_tensors.status().message();
  // The published index's total_size (total_size.txt).
  EXPECT_EQ(checkpoint_bytes(*moe_tensors).value(), 51'611'872'412LL);
}

TEST(Gemma4, VllmServesTheLanguageModelWithPagesOfOneSize) {
  // The language model alone: the checkpoint's text in bfloat16, each full layer's V slot
  // loaded from k_proj (4 heads of 512 over 5376), the two RoPE caches.
  const Ledger l = family_ledger("vllm", k31b, 1, "    --language-model-only: true\n");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"),
            2 * k31bText + 10 * 4 * 512 * 5376 * 2 + kRopeBytes);
  // A sliding layer's page of 16 tokens (16 heads of 256, K and V) is 262,144 B, a full
  // layer's (4 of 512) 131,072: the full layers take 32-token blocks of the same page, and the
  // 60 layers form 6 groups of 10.
  EXPECT_EQ(ledger_fact(l, "kv_page_bytes"), 262144);
  EXPECT_EQ(ledger_fact(l, "kv_layers_per_group"), 10);

  const Ledger moe = family_ledger("vllm", k26b, 2, "    --language-model-only: true\n");
  ASSERT_TRUE(moe.fits());
  // TP 2: 4 sliding KV heads (65,536 B a page), one full head of 512 (32,768 B, 32 tokens).
  EXPECT_EQ(ledger_fact(moe, "kv_page_bytes"), 65536);
  EXPECT_EQ(ledger_fact(moe, "kv_layers_per_group"), 5);
}

// alvarobartt/hf-mem PR #61: google/gemma-4-31B-it in bfloat16 at TP 1 logs "Available KV cache
// memory: 24.54 GiB" and "GPU KV cache size: 26,800 tokens": 24.54 GiB // 2,621,440 B (ten
// layers' pages) = 10,051 blocks, logged by releases before 0.21.0 as 10,051 // 6 groups x 16.
// The PR quotes no launch line; a context of 65,536 lets one request fit in 24.54 GiB (the
// full 262,144 with 8,192 batched tokens needs 27.04 GiB).
TEST(Gemma4, HfMemPr61KvTokensFromThePinnedMemory) {
  const Ledger l = scenario_ledger(
      "hardware: {gpu: h200, count: 1}\nengine:\n  name: vllm\n  version: 0.19.0\n"
      "  args:\n    --language-model-only: true\n    --max-model-len: 65536\nmodel: " +
      public_config_dir(k31b) + "\nobserved:\n  kv_cache_memory: 24.54GiB\n");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "kv_blocks"), 10051);
  EXPECT_EQ(ledger_fact(l, "kv_tokens"), 26800);
}

// vLLM's default launch builds the tower and profiles it on dummy videos: a video counts
// 32 frames x (70 soft tokens + 8) = 2,496 budget tokens, so a budget of 8,192 (the H200's
// batched tokens) takes 3. Each frame is a 224 x 224 image scaled to 384 x 384: 576 patches of
// 16, padded to 70 x 9 = 630, pooled 3 x 3 into 64 soft tokens. Held through the language
// model's dummy run: the pixel values [96, 630, 768] bf16, the positions [96, 630, 2] int64,
// the frame counts (one 512-byte block) and each video's [2048, 5376] output. Frames run one
// at a time (v0.19-0.21), so the encoder peaks at the last frame's one-hot position embedding
// ([630, 2, 10240] int64 and its bf16 cast) beside the inputs, two videos' outputs, 31 frames'
// [64, 5376] embeddings, the scaled pixels, input_proj's output and the clamped ids (10,080 B
// in a 10,240-byte block). input_proj's 1,451,520 B sit in a 1,474,560-byte free block that
// weight loading left: PyTorch splits a large block only when more than 1 MiB would remain,
// so the whole block counts as allocated.
TEST(Gemma4, VllmProfilesThreeDummyVideosOneFrameAtATime) {
  const std::int64_t inputs = 96LL * 630 * 768 * 2 + 96LL * 630 * 2 * 8 + 512;
  const std::int64_t video = 2048LL * 5376 * 2;
  const std::int64_t frame = 64LL * 5376 * 2;
  const std::int64_t one_hot = 630LL * 2 * 10240 * (8 + 2);
  const Ledger l = family_ledger("vllm", k31b, 1, "");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "encoder_items"), 3);
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"), inputs + 3 * video);
  EXPECT_EQ(inputs + 3 * video, 159'925'760LL);
  EXPECT_EQ(ledger_fact(l, "encoder_peak_bytes"),
            inputs + 2 * video + 31 * frame + 630LL * 768 * 2 + 1474560 + 10240 + one_hot);
  // The tower and embed_vision, whole and in bf16, and the tower's float32 inv_freq (18).
  const Ledger text = family_ledger("vllm", k31b, 1, "    --language-model-only: true\n");
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes") - ledger_fact(text, "weights_logical_bytes"),
            2 * vision(5376) + 18 * 4);
  // The 26B at TP 2 keeps the whole tower on each rank.
  const Ledger moe = family_ledger("vllm", k26b, 2, "");
  const Ledger moe_text = family_ledger("vllm", k26b, 2, "    --language-model-only: true\n");
  EXPECT_EQ(
      ledger_fact(moe, "weights_logical_bytes") - ledger_fact(moe_text, "weights_logical_bytes"),
      2 * vision(2816) + 18 * 4);
}

// With videos limited to 0 vLLM profiles images: 8,192 // 280 = 29 of them, each 224 x 224
// scaled to 768 x 768, 2,304 patches padded to 280 x 9 = 2,520, 256 soft tokens. Held: the
// pixel values [29, 2520, 768] bf16, the positions [29, 2520, 2] int64 and each image's
// [256, 5376] embeddings. The images run one at a time and embed_vision runs over each after
// the last, so the peak is the last image's one-hot ([2520, 2, 10240] int64 and its bf16
// cast) beside the inputs, 28 images' pooled [256, 1152] features, the scaled pixels,
// input_proj's output and the clamped ids (40,320 B in a 40,448-byte block). PyTorch splits a
// free large block only when more than 1 MiB would remain, and counts the whole block: the
// pixel values' new segment (rounded to 2 MiB) carries 995,328 B beyond them, the positions'
// block 403,456 B beyond their 1,169,408, the scaled pixels' 659,456 B, the one-hot's 262,144
// B, and the images' outputs 188,416 B in all (an independent replay of gpumem export-ops'
// trace through PyTorch's block rules gives the same peak).
TEST(Gemma4, VllmProfilesImagesWhenVideosAreLimitedToZero) {
  const std::int64_t inputs = 29LL * 2520 * 768 * 2 + 29LL * 2520 * 2 * 8;
  const std::int64_t one_hot = 2520LL * 2 * 10240 * (8 + 2);
  const Ledger l = family_ledger("vllm", k31b, 1, "    --limit-mm-per-prompt: '{\"video\": 0}'\n");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "encoder_items"), 29);
  const std::int64_t unsplit = 995328 + 403456 + 128;
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"),
            inputs + unsplit + 29LL * 256 * 5376 * 2 + 188416);
  EXPECT_EQ(ledger_fact(l, "encoder_peak_bytes"), inputs + unsplit + 28LL * 256 * 1152 * 2 +
                                                      2520LL * 768 * 2 + 659456 +
                                                      2520LL * 1152 * 2 + 40448 + one_hot + 262144);
}

TEST(Gemma4, WhatIsNotModelledIsRefused) {
  const std::string model = public_config_dir(k31b);
  EXPECT_EQ(family_errors("vllm", k31b, "    --language-model-only: true\n", 1, "0.18.0"),
            "f.yaml:4:12: Gemma4ForConditionalGeneration is not served by vLLM 0.18.0 (from "
            "0.19.0)\n");
  EXPECT_EQ(family_errors("sglang", k31b, "    --tp-size: 1\n"),
            "f.yaml:7:8: " + model +
                " (Gemma4ForConditionalGeneration): SGLang's Gemma 4 is not modelled (its SWA "
                "pool of two head sizes and its own vision encoder); vLLM is modelled\n");
  // The small models' per-layer input embeddings are refused at their key.
  const std::string ple = config_variant(k31b, "gemma4-ple", "\"hidden_size_per_layer_input\": 0",
                                         "\"hidden_size_per_layer_input\": 256");
  const std::string errors = config_dir_errors(ple);
  EXPECT_NE(errors.find("Gemma 4's per-layer input embeddings ('hidden_size_per_layer_input', "
                        "the E2B/E4B models) are not modelled"),
            std::string::npos)
      << errors;
}

}  // namespace
}  // namespace gpumem
