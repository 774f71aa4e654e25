// vLLM's profile of a Qwen vision tower (engine/vllm/encoder_profile.h): the dummy image
// and item count its encoder budget admits, the ViT forward's peak byte for byte, the tower's
// weights, the log line, and the launches it refuses by name. Qwen3.6-27B (Qwen3.5's tower:
// 27 blocks of 1,152 wide, MLP 4,304, 16 heads, patch 16, merge 2, out 5,120, no deepstack),
// Qwen3-VL-8B (the same blocks, out 4,096, deepstack after blocks 8, 16 and 24) and
// Qwen2.5-VL-7B (32 blocks of 1,280 wide, gated MLP 3,420, 16 heads, patch 14, merge 2,
// windows of 112 pixels, out 3,584).
#include <gtest/gtest.h>

#include <utility>

#include "catalog/architecture.h"
#include "catalog/model_catalog.h"
#include "engine/vllm/encoder_profile.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

using vllm::EncoderLimits;
using vllm::EncoderProfile;

VisionTower catalog_tower(const std::string& slug) {
  Diagnostics diags;
  Result<ModelEntry> e = test_catalogs().models.find(slug, diags);
  EXPECT_TRUE(e.ok()) << diags.to_string();
  return e.ok() ? e->architecture.vision : VisionTower{};
}

VisionTower tower(const std::string& repo) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? a->vision : VisionTower{};
}

// The processor's 16,777,216-pixel image in 32-pixel merged patches is 128 x 128: 16,384
// tokens of 4 patches; the two-frame video of 25,165,824 / 2 pixels a frame group is 96 x 128.
TEST(VllmEncoderProfile, TheLargestImageOutweighsTheLargestVideo) {
  const VisionTower v = tower("Qwen--Qwen3.6-27B");
  ASSERT_EQ(v.kind, VisionKind::kQwen3Vit);
  EXPECT_EQ(vllm::qwen_vl_max_image_tokens(v), 16384);
  EXPECT_EQ(vllm::qwen3_vl_max_video_tokens(v), 12288);
  // With 14-pixel patches the limit is 16,777,216 / 784 = 21,399 = 21 x 1,019: its closest
  // factor pair's aspect ratio (48.5) is within 200, so it is the count.
  VisionTower small = v;
  small.patch_size = 14;
  EXPECT_EQ(vllm::qwen_vl_max_image_tokens(small), 21399);
}

// Qwen2.5-VL's processor allows 12,845,056 pixels: 16,384 merged patches of 28 x 28 pixels,
// 128 x 128.
TEST(VllmEncoderProfile, QwenTwoPointFiveVlsLargestImageIsItsMaxPixels) {
  const VisionTower v = catalog_tower("qwen2.5-vl-7b-instruct");
  ASSERT_EQ(v.kind, VisionKind::kQwen25Vit);
  EXPECT_EQ(v.window_size, 112);
  EXPECT_EQ(vllm::qwen_vl_max_image_tokens(v), 16384);
  EXPECT_EQ(vllm::qwen_vl_max_image_grid(v), std::make_pair(std::int64_t{128}, std::int64_t{128}));
  // A processor of 12,845,056 pixels with 16-pixel patches: 3,136 merged patches of 32 x 32 (56
  // x 56); one with 14-pixel patches and merge 1: 65,536 (256 x 256).
  VisionTower other = v;
  other.patch_size = 16;
  EXPECT_EQ(vllm::qwen_vl_max_image_tokens(other), 12544);
  other.patch_size = 14;
  other.spatial_merge_size = 1;
  EXPECT_EQ(vllm::qwen_vl_max_image_grid(other),
            std::make_pair(std::int64_t{256}, std::int64_t{256}));
}

// budget = max(max_num_batched_tokens, 16384); items = max(1, min(budget // 16384, requests x
// per prompt)), per prompt max(1, min(limit, max_model_len // 16384)).
TEST(VllmEncoderProfile, TheBudgetAdmitsWholeImagesUpToTheRequestsAndTheirLimit) {
  const VisionTower v = tower("Qwen--Qwen3.6-27B");
  const auto profile = [&](EncoderLimits l) {
    const EncoderProfile p = vllm::plan_qwen_vl_profile(v, l);
    return std::to_string(p.budget) + " tokens, " + std::to_string(p.items) + " items, " +
           std::to_string(p.patches()) + " patches";
  };
  EXPECT_EQ(profile({8192, 1024, 262144, {}, true, {}}), "16384 tokens, 1 items, 65536 patches");
  EXPECT_EQ(profile({32768, 1024, 262144, {}, true, {}}), "32768 tokens, 2 items, 131072 patches");
  EXPECT_EQ(profile({65536, 1024, 262144, {}, true, {}}), "65536 tokens, 4 items, 262144 patches");
  // One request of one image each.
  EXPECT_EQ(profile({65536, 1, 262144, 1, true, {}}), "65536 tokens, 1 items, 65536 patches");
  // One request whose context holds two images.
  EXPECT_EQ(profile({65536, 1, 32768, {}, true, {}}), "65536 tokens, 2 items, 131072 patches");
  // A context shorter than one image still profiles one.
  EXPECT_EQ(profile({8192, 256, 4096, {}, true, {}}), "16384 tokens, 1 items, 65536 patches");
  // Without chunked prefill a step holds max_num_batched_tokens // 16384 requests' images.
  EXPECT_EQ(profile({49152, 1024, 262144, {}, false, {}}), "49152 tokens, 3 items, 196608 patches");
  EXPECT_EQ(profile({8192, 1024, 262144, {}, false, {}}), "16384 tokens, 1 items, 65536 patches");
}

// One image (65,536 patches) on one H200 at TP 1, u = 65,536 x 1,152 x 2 B: the bf16 pixel
// values (65,536 x 1,536 x 2 B) and the rotary tables (2 x 65,536 x 36 x 2 B) are held while
// the first block's attention holds the stream, norm1, qkv (3u), the q/k copy and its rotated
// copy (2u each), the attention output and its contiguous copy: 11u, the forward's peak.
// Held after it: the pixel values and the merged output (16,384 x 5,120 x 2 B).
TEST(VllmEncoderProfile, TheVitPeaksInAttentionWithThePixelValuesHeld) {
  const std::int64_t u = 65536LL * 1152 * 2;
  const std::int64_t pixels = 65536LL * 1536 * 2;
  const std::int64_t rotary = 2 * 65536LL * 36 * 2;
  const Ledger l = family_ledger("vllm", "Qwen--Qwen3.6-27B", 1, "");
  EXPECT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "encoder_items"), 1);
  EXPECT_EQ(ledger_fact(l, "encoder_peak_bytes"), pixels + rotary + 11 * u);
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"), pixels + 16384LL * 5120 * 2);
  // At TP 2 qkv, the attention copies and fc1 halve; the stream, norms and proj do not:
  // the proj moment (stream, norm1, qkv 1.5u, the q/k copies 2u, context 0.5u, proj) is it.
  const Ledger tp2 = family_ledger("vllm", "Qwen--Qwen3.6-27B", 2, "");
  EXPECT_EQ(ledger_fact(tp2, "encoder_peak_bytes"), pixels + rotary + 7 * u);
}

// Qwen2.5-VL-7B on one H200 at TP 1 with an 8,192-token context: its dummy video is one frame
// group, a tie that profiles the image, 65,536 patches; u = 65,536 x 1,280 x 2 B. Held through
// the blocks are the bf16 pixel values (65,536 x 1,176 x 2 B), the rotary tables
// (2 x 65,536 x 40 x 2 B), cu_seqlens (2 int32, one 512 B block), cu_window_seqlens (32 x 32
// windows of 4 x 4 merged patches, 1,025 int32: 4,608 B) and the window index and its inverse
// (16,384 int64 each). The peak is the MLP's down projection: the stream, the attention's
// projection and down (u each) beside gate_up and the SiLU-and-mul output (65,536 x 3,420 x
// 2 B x 3), and, with torch.compile on (custom ops off), norm2's native outputs: 2u more. With
// --enforce-eager the fused kernel normalizes in place. Held after it: the pixel values and
// the output in raster order (16,384 x 3,584 x 2 B). The pixel values (147 MiB) and gate_up
// (855 MiB) each take a new segment rounded up to 2 MiB, whose 1 MiB remainder the caching
// allocator leaves in the block (it splits a large block only when more than 1 MiB would
// remain): 1 MiB more each.
TEST(VllmEncoderProfile, QwenTwoPointFiveVlsVitPeaksInItsGatedMlp) {
  const std::int64_t mib = 1 << 20;
  const std::int64_t u = 65536LL * 1280 * 2;
  const std::int64_t pixels = 65536LL * 1176 * 2 + mib;
  const std::int64_t rotary = 2 * 65536LL * 40 * 2;
  const std::int64_t indexes = 512 + 4608 + 2 * 16384LL * 8;
  const std::int64_t mlp = 3 * 65536LL * 3420 * 2 + mib;
  const std::string context = "    --max-model-len: 8192\n";
  const Ledger l = family_ledger("vllm", "qwen2.5-vl-7b-instruct", 1, context);
  EXPECT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "encoder_items"), 1);
  EXPECT_EQ(ledger_fact(l, "encoder_peak_bytes"), pixels + rotary + indexes + 5 * u + mlp);
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"), pixels + 16384LL * 3584 * 2);
  const Ledger eager =
      family_ledger("vllm", "qwen2.5-vl-7b-instruct", 1, context + "    --enforce-eager: true\n");
  EXPECT_EQ(ledger_fact(eager, "encoder_peak_bytes"), pixels + rotary + indexes + 3 * u + mlp);
  // The same when compilation is off (mode 0) or the rms_norm custom op is turned on; turned
  // off, or all ops off, it runs native even eagerly.
  const auto peak = [&](const std::string& args) {
    return ledger_fact(family_ledger("vllm", "qwen2.5-vl-7b-instruct", 1, context + args),
                       "encoder_peak_bytes");
  };
  const std::int64_t fused = pixels + rotary + indexes + 3 * u + mlp;
  const std::int64_t native = fused + 2 * u;
  EXPECT_EQ(peak("    --compilation-config: '{\"mode\": 0}'\n"), fused);
  EXPECT_EQ(peak("    --compilation-config: '{\"custom_ops\": [\"+rms_norm\"]}'\n"), fused);
  EXPECT_EQ(peak("    --compilation-config: '{\"custom_ops\": [\"all\", \"-rms_norm\"]}'\n"),
            native);
  EXPECT_EQ(peak("    --enforce-eager: true\n    --compilation-config: '{\"custom_ops\": "
                 "[\"none\"]}'\n"),
            native);
  EXPECT_EQ(family_errors("vllm", "qwen2.5-vl-7b-instruct",
                          "    --compilation-config: '{\"custom_ops\": \"all\"}'\n"),
            "f.yaml:6:27: custom_ops in --compilation-config must be a list of names\n");
  // At TP 2 the MLP's widths halve (3 x 65,536 x 1,710 x 2 B); gate_up's (427.5 MiB) and the
  // SiLU output's (213.75 MiB) new segments leave half and a quarter of a MiB in their blocks.
  const Ledger tp2 = family_ledger("vllm", "qwen2.5-vl-7b-instruct", 2, context);
  EXPECT_EQ(ledger_fact(tp2, "encoder_peak_bytes"),
            pixels + rotary + indexes + 5 * u + 3 * 65536LL * 1710 * 2 + mib / 2 + mib / 4);
  // With 0 images and 0 videos the tower is not built and nothing is profiled: the weights
  // drop by the ViT and merger's 676,550,144 bf16 parameters (the catalog entry's count) and
  // the float32 rotary inv_freq (20 entries).
  const Ledger text =
      family_ledger("vllm", "qwen2.5-vl-7b-instruct", 1,
                    context + "    --limit-mm-per-prompt: '{\"image\": 0, \"video\": 0}'\n");
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes") - ledger_fact(text, "weights_logical_bytes"),
            2 * 676'550'144LL + 20 * 4);
}

// Qwen2.5-VL's dummy video grows with the context, up to 14 frames (qwen2_vl.py
// _MAX_FRAMES_PER_VIDEO): frames pad to pairs, each pair one 128 x 128 grid of 16,384 tokens.
// At the default 128,000 tokens it is 14 frames, 7 x 16,384 = 114,688 tokens, the budget and
// item a real vLLM 0.23 log prints ("budget of 114688 tokens, and profiled with 1 video
// items", tests/data/engine-logs/vllm-a100-80gb-x1-qwen2.5-vl-7b-gmu022-no-kv-memory.log).
TEST(VllmEncoderProfile, QwenTwoPointFiveVlsVideoGrowsWithTheContext) {
  const VisionTower v = catalog_tower("qwen2.5-vl-7b-instruct");
  EXPECT_EQ(vllm::qwen25_vl_max_video_frames(v, 8192), 1);
  EXPECT_EQ(vllm::qwen25_vl_max_video_frames(v, 16384), 2);
  EXPECT_EQ(vllm::qwen25_vl_max_video_frames(v, 32768), 4);
  EXPECT_EQ(vllm::qwen25_vl_max_video_frames(v, 128000), 14);
  EXPECT_EQ(vllm::qwen25_vl_max_video_frames(v, 1000000), 14);
  const auto profile = [&](vllm::EncoderLimits l) {
    const EncoderProfile p = vllm::plan_qwen_vl_profile(v, l);
    return std::string(p.modality) + ": " + std::to_string(p.budget) + " tokens, " +
           std::to_string(p.items) + " items, " + std::to_string(p.patches()) + " patches";
  };
  EXPECT_EQ(profile({8192, 1024, 128000, {}, true, {}}),
            "video: 114688 tokens, 1 items, 458752 patches");
  EXPECT_EQ(profile({8192, 1024, 32768, {}, true, {}}),
            "video: 32768 tokens, 1 items, 131072 patches");
  // Equal tokens: the image, the first modality.
  EXPECT_EQ(profile({8192, 1024, 16384, {}, true, {}}),
            "image: 16384 tokens, 1 items, 65536 patches");
  // Videos limited to 0 profile the image; images limited to 0 the video.
  EXPECT_EQ(profile({8192, 1024, 128000, {}, true, 0}),
            "image: 16384 tokens, 1 items, 65536 patches");
  EXPECT_EQ(profile({8192, 1024, 16384, 0, true, {}}),
            "video: 16384 tokens, 1 items, 65536 patches");
  // A 14-frame video on one H200: 458,752 patches in 7 frame groups that each attend alone
  // (cu_seqlens 8 int32, cu_window_seqlens 7 x 1,024 + 1: 29,184 B). The pixel values
  // (1,029 MiB) keep their segment's 1 MiB remainder; the peak is the same MLP moment as the
  // image's, with a few MiB of such remainders (the caching allocator splits a block only when
  // more than 1 MiB would remain).
  const Ledger l = family_ledger("vllm", "qwen2.5-vl-7b-instruct", 1, "");
  EXPECT_EQ(ledger_fact(l, "encoder_items"), 1);
  const std::int64_t n = 458752;
  const std::int64_t mib = 1 << 20;
  const std::int64_t pixels = n * 1176 * 2 + mib;
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"), pixels + 114688LL * 3584 * 2);
  const std::int64_t peak = pixels + 2 * n * 40 * 2 + 512 + 29184 + 2 * 114688LL * 8 +
                            5 * n * 1280 * 2 + 3 * n * 3420 * 2;
  EXPECT_GE(ledger_fact(l, "encoder_peak_bytes"), peak);
  EXPECT_LE(ledger_fact(l, "encoder_peak_bytes"), peak + 4 * mib);
}

// From 0.12.0 to 0.15.x vLLM profiles Qwen2.5-VL as 0.16.0 does (MultiModalBudget's items,
// the same largest image, PR #25557's video frames, PR #28798's cos/sin tables): a 14-frame
// video, 114,688 tokens, at the default 128,000-token context. Before 0.12.0 the ViT's rotary
// tables differed and the profile is refused; the tower is left out without images and
// videos from 0.10.2. How 0.12-0.15 pad the outputs they keep is not pinned, so a budget
// above one item is refused there.
TEST(VllmEncoderProfile, QwenTwoPointFiveVlProfilesFromZeroTwelve) {
  const std::string repo = "qwen2.5-vl-7b-instruct";
  const Ledger newest = family_ledger("vllm", repo, 1, "", "h200", "0.16.0");
  for (const char* version : {"0.12.0", "0.15.1"}) {
    const Ledger l = family_ledger("vllm", repo, 1, "", "h200", version);
    for (const char* fact : {"encoder_items", "encoder_peak_bytes", "encoder_held_bytes"}) {
      EXPECT_EQ(ledger_fact(l, fact), ledger_fact(newest, fact)) << version << " " << fact;
    }
  }
  EXPECT_EQ(family_errors("vllm", repo, "    --max-num-batched-tokens: 131072\n", 1, "0.13.0"),
            "f.yaml:7:8: qwen2.5-vl-7b-instruct (Qwen2_5_VLForConditionalGeneration): vLLM "
            "0.13.0 keeps each dummy encoder output padded either to the encoder budget (131072 "
            "tokens, as 0.11.0 does) or to the item's 114688 tokens (as 0.16.0 does), and which "
            "is not pinned; they agree when --max-num-batched-tokens is at most 114688\n");
  EXPECT_EQ(family_errors("vllm", repo, "    --max-num-batched-tokens: 131072\n", 1, "0.16.0"), "");
  // Without images and videos the language model is served alone from 0.10.2: the tower's
  // weights are not loaded; 0.10.1 is refused as every Qwen-VL profile before 0.12.0.
  const std::string text_only = "    --limit-mm-per-prompt: '{\"image\": 0, \"video\": 0}'\n";
  const Ledger lm = family_ledger("vllm", repo, 1, text_only, "h200", "0.10.2");
  EXPECT_EQ(lm.gpus.front().fact("encoder_items"), nullptr);
  EXPECT_LT(ledger_fact(lm, "weights_logical_bytes"), ledger_fact(newest, "weights_logical_bytes"));
  EXPECT_NE(family_errors("vllm", repo, text_only, 1, "0.10.1")
                .find("vLLM 0.10.1's profile of its vision encoder is not modelled (from 0.12.0)"),
            std::string::npos);
  // Qwen3-VL came with vLLM 0.11.0 (PR #24727).
  EXPECT_EQ(family_errors("vllm", "Qwen--Qwen3-VL-8B-Instruct", text_only, 1, "0.10.2"),
            "f.yaml:4:12: Qwen3VLForConditionalGeneration is not served by vLLM 0.10.2 (from "
            "0.11.0)\n");
}

// Gemma 3 27B on one H200 at TP 1: 256 embeddings an image (an 896-pixel image's 64 x 64
// patches pooled 4 x 4), so the default 8,192-token budget admits 32 images: 131,072 patches;
// d = 131,072 x 1,152 x 2 B, i = 131,072 x 4,304 x 2 B. The pixel values (32 x 3 x 896 x 896
// x 2 B, 147 MiB in a 148 MiB segment: 1 MiB kept in the block) and num_patches (one 512 B
// block) are held; the embeddings stay in the encoder's pool through every layer, each layer
// holds its input, and from the second layer on the peak is the MLP's activation: the
// embeddings, the layer's input, out_proj (with the residual added in place), layer_norm2,
// fc1 and gelu: 4d + 2i. Held after: the pixel values and the projector's output, 32 x 256
// rows of the language model's 5,376.
TEST(VllmEncoderProfile, GemmaThreesSiglipPeaksInTheMlpWithTheEmbeddingsHeld) {
  const std::int64_t mib = 1 << 20;
  const std::int64_t d = 131072LL * 1152 * 2;
  const std::int64_t i = 131072LL * 4304 * 2;
  const std::int64_t held = 32LL * 3 * 896 * 896 * 2 + mib + 512;
  const Ledger l = family_ledger("vllm", "gemma-3-27b-it", 1, "");
  EXPECT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "encoder_items"), 32);
  EXPECT_EQ(ledger_fact(l, "encoder_peak_bytes"), held + 4 * d + 2 * i);
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"), held + 32LL * 256 * 5376 * 2);
  // One request of one image: one item, 4,096 patches.
  const Ledger one =
      family_ledger("vllm", "gemma-3-27b-it", 1,
                    "    --max-num-seqs: 1\n    --limit-mm-per-prompt: '{\"image\": 1}'\n");
  EXPECT_EQ(ledger_fact(one, "encoder_items"), 1);
  // A mapping's count is read; its dummy-size options are refused by name.
  const Ledger counted = family_ledger(
      "vllm", "gemma-3-27b-it", 1,
      "    --max-num-seqs: 1\n    --limit-mm-per-prompt: '{\"image\": {\"count\": 1}}'\n");
  EXPECT_EQ(ledger_fact(counted, "encoder_items"), 1);
  EXPECT_EQ(family_errors("vllm", "gemma-3-27b-it",
                          "    --limit-mm-per-prompt: '{\"image\": {\"count\": 1, \"width\": "
                          "512, \"height\": 512}}'\n"),
            "f.yaml:6:28: --limit-mm-per-prompt: 'image' option 'width' resizes the encoder "
            "profile's dummy items, which gpumem does not model (it models the processor's own "
            "sizes; 'count' is read)\n");
  // A modality vLLM does not know is no limit at all: refused, with a suggestion.
  EXPECT_EQ(
      family_errors("vllm", "gemma-3-27b-it", "    --limit-mm-per-prompt: '{\"imgae\": 0}'\n"),
      "f.yaml:6:28: --limit-mm-per-prompt: unknown modality 'imgae'; vLLM's are image, "
      "video, audio and vision_chunk; did you mean 'image'?\n");
  // With images limited to 0 the tower is not built: the weights drop by the SigLIP tower's
  // and projector's bf16 parameters (the patch embedding 1,152 x 3 x 14 x 14 and its bias,
  // 4,096 position rows, 27 layers of two LayerNorms, q/k/v, out_proj, fc1 and fc2 with
  // biases, post_layernorm, the 1,152 x 5,376 projection and its norm) and the int64
  // position_ids buffer.
  const Ledger text =
      family_ledger("vllm", "gemma-3-27b-it", 1, "    --limit-mm-per-prompt: '{\"image\": 0}'\n");
  const std::int64_t h = 1152;
  const std::int64_t layer = 4 * h + 3 * h * h + 3 * h + h * h + h + 2 * 4304 * h + 4304 + h;
  const std::int64_t tower = h * 3 * 14 * 14 + h + 4096 * h + 27 * layer + 2 * h + h * 5376 + h;
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes") - ledger_fact(text, "weights_logical_bytes"),
            2 * tower + 4096 * 8);
}

// Qwen3-VL-8B's deepstack features (16,384 x 4,096 x 2 B each) stay from their block to the
// end, so blocks 25 and 26 run with all three held; the output is 4 x 4,096 wide. vLLM also
// creates one [max_num_batched_tokens, 4,096] bf16 buffer per level with the model.
TEST(VllmEncoderProfile, DeepstackFeaturesStayUntilTheOutputIsConcatenated) {
  const std::int64_t u = 65536LL * 1152 * 2;
  const std::int64_t pixels = 65536LL * 1536 * 2;
  const std::int64_t rotary = 2 * 65536LL * 36 * 2;
  const std::int64_t feature = 16384LL * 4096 * 2;
  const Ledger l = family_ledger("vllm", "Qwen--Qwen3-VL-8B-Instruct", 1, "");
  EXPECT_EQ(ledger_fact(l, "encoder_peak_bytes"), pixels + rotary + 3 * feature + 11 * u);
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"), pixels + 4 * feature);
  const Ledger text =
      family_ledger("vllm", "Qwen--Qwen3-VL-8B-Instruct", 1, "    --language-model-only: true\n");
  // The checkpoint's ViT parameters in bf16, 576,388,336 of its 8,767,123,696 (SOURCE.md beside
  // its config; model_families_test.cc derives the split), the float32 rotary inv_freq (18) and the
  // three buffers of 8,192 rows (the H200's default max_num_batched_tokens).
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes") - ledger_fact(text, "weights_logical_bytes"),
            2 * 576'388'336LL + 18 * 4 + 3 * 8192LL * 4096 * 2);
}

// The tower's weights: 460,730,096 parameters in 333 tensors, 0.858 GiB, as a vLLM log of the
// same tower printed it ("333 visual tensors, 0.858 GiB":
// https://github.com/syv-ai/qwen38-27b-rtx3090/issues/107, Qwen3.8-27B, whose tower is
// Qwen3.5-27B's); with the float32 rotary inv_freq (18 entries) beside them.
TEST(VllmEncoderProfile, TheTowersWeightsAreTheCheckpointsVisualTensors) {
  const Ledger on = family_ledger("vllm", "Qwen--Qwen3.6-27B", 1, "");
  const Ledger off =
      family_ledger("vllm", "Qwen--Qwen3.6-27B", 1, "    --language-model-only: true\n");
  EXPECT_EQ(ledger_fact(on, "weights_logical_bytes") - ledger_fact(off, "weights_logical_bytes"),
            2 * 460'730'096LL + 18 * 4);
}

// A deepstack tap after a block the tower does not have, or the same block twice, is refused at
// the key (qwen3_vl.py looks the mergers up by the index's position among the blocks).
TEST(VllmEncoderProfile, DeepstackIndexesMustBeDistinctBlocks) {
  const std::string beyond =
      config_variant("Qwen--Qwen3-VL-8B-Instruct", "deepstack-beyond", "      24\n", "      27\n");
  EXPECT_NE(config_dir_errors(beyond).find(
                "'deepstack_visual_indexes' entry 27 is not a distinct block of the 27 ('depth')"),
            std::string::npos);
  const std::string twice =
      config_variant("Qwen--Qwen3-VL-8B-Instruct", "deepstack-twice", "      24\n", "      16\n");
  EXPECT_NE(config_dir_errors(twice).find(
                "'deepstack_visual_indexes' entry 16 is not a distinct block of the 27 ('depth')"),
            std::string::npos);
}

TEST(VllmEncoderProfile, LaunchesItDoesNotModelAreRefusedByName) {
  const std::string repo = "Qwen--Qwen3.6-27B";
  const std::string model = public_config_dir(repo);
  EXPECT_EQ(family_errors("vllm", repo, "    --tensor-parallel-size: 1\n", 1, "0.15.1"),
            "f.yaml:7:8: " + model +
                " (Qwen3_5ForConditionalGeneration): vLLM 0.15.1's profile of its vision encoder "
                "is not modelled (from 0.16.0); --limit-mm-per-prompt with 0 images and 0 videos "
                "serves its language model alone, which is modelled\n");
  EXPECT_EQ(family_errors("vllm", repo, "    --limit-mm-per-prompt: '{\"image\": 0}'\n"),
            "f.yaml:7:8: " + model +
                " (Qwen3_5ForConditionalGeneration): with --limit-mm-per-prompt's image limit 0, "
                "vLLM profiles the vision encoder on dummy videos, which gpumem does not model; "
                "limit videos to 0 as well to serve the language model alone\n");
  EXPECT_NE(family_errors("vllm", repo, "    --mm-encoder-tp-mode: data\n")
                .find("'data' replicates the multimodal encoder's weights on every TP rank"),
            std::string::npos);
  EXPECT_EQ(family_errors("vllm", repo, "    --mm-encoder-tp-mode: weights\n"), "");
  EXPECT_EQ(family_errors("vllm", repo, "    --mm-processor-kwargs: '{\"max_pixels\": 1000000}'\n"),
            "f.yaml:7:8: " + model +
                " (Qwen3_5ForConditionalGeneration): --mm-processor-kwargs sets the multimodal "
                "processor's image size, which sizes the encoder profile's dummy image; gpumem "
                "models the checkpoint's default processor\n");
  // Qwen2.5-VL's profile is modelled from 0.12.0 (QwenTwoPointFiveVlProfilesFromZeroTwelve).
  EXPECT_EQ(family_errors("vllm", "qwen2.5-vl-7b-instruct", "    --tensor-parallel-size: 1\n", 1,
                          "0.11.0"),
            "f.yaml:7:8: qwen2.5-vl-7b-instruct (Qwen2_5_VLForConditionalGeneration): vLLM "
            "0.11.0's profile of its vision encoder is not modelled (from 0.12.0); from 0.10.2, "
            "--limit-mm-per-prompt with 0 images and 0 videos serves its language model alone, "
            "which is modelled\n");
  // A model without a multimodal processor ignores it.
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --mm-processor-kwargs: '{\"max_pixels\": 1}'\n"),
            "");
}

}  // namespace
}  // namespace gpumem
