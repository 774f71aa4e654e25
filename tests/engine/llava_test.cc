// LLaVA-1.5 (LlavaForConditionalGeneration) and LLaVA-NeXT (LlavaNextForConditionalGeneration)
// from their published configs: a Llama or Mistral language model whose text_config writes
// only what differs from its class's defaults, beside a CLIP ViT-L/14-336 and a two-linear
// projector. vLLM builds the CLIP layers up to the feature layer (23 of 24) without
// post_layernorm, profiles LLaVA's encoder on 336-pixel dummy images (576 embeddings each) and
// LLaVA-NeXT's on its largest pinpoint's crops, and builds no tower when images are limited to
// 0; SGLang serves neither (refused with its reasons).
#include <gtest/gtest.h>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "engine/vllm/encoder_profile.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kLlava = "llava-hf--llava-1.5-7b-hf";
const std::string kNext = "llava-hf--llava-v1.6-mistral-7b-hf";
const std::string kNoImages = "    --limit-mm-per-prompt: '{\"image\": 0}'\n";

VisionTower next_tower() {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kNext) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? a->vision : VisionTower{};
}

constexpr std::int64_t kClip = 1024;
// A CLIP layer: two LayerNorms, biased q/k/v/out, fc1 (4,096 wide) and fc2, both biased.
constexpr std::int64_t kClipLayer =
    4 * kClip + 4 * (kClip * kClip + kClip) + 2 * kClip * 4096 + 4096 + kClip;
// The class embedding, the bias-free 14 x 14 patch convolution, 577 position rows and
// pre_layrnorm.
constexpr std::int64_t kClipEmbeddings = kClip + kClip * 3 * 14 * 14 + 577 * kClip + 2 * kClip;
// linear_1 (1,024 -> 4,096) and linear_2 (4,096 -> 4,096), both biased.
constexpr std::int64_t kProjector = kClip * 4096 + 4096 + 4096 * 4096 + 4096;

// Llama-2-7B at LlamaConfig's defaults (4,096 wide, 32 layers of 32 heads, an 11,008-wide MLP)
// with the config's 32,064-row vocabulary, untied.
std::int64_t llama2_7b_parameters() {
  const std::int64_t h = 4096;
  return 2 * 32064 * h + 32 * (4 * h * h + 3 * h * 11008 + 2 * h) + h;
}

// transformers counts 7,063,427,072 parameters in llava-hf/llava-1.5-7b-hf: a test asserting
// count_parameters over this config (search index id 4065502446) and a blog post printing it
// (id 53760140093). HF's tower has all 24 layers and post_layernorm.
TEST(Llava, ParameterCountIsThePublishedOne) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kLlava) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kLlama);
  EXPECT_EQ(a->hidden_size, 4096);
  EXPECT_EQ(a->intermediate_size, 11008);
  EXPECT_EQ(a->num_key_value_heads, 32);
  EXPECT_EQ(a->max_position_embeddings, 4096);
  EXPECT_EQ(a->vision.kind, VisionKind::kClip);
  EXPECT_EQ(a->vision.clip_layers_built(), 23);
  EXPECT_EQ(parameter_count(*a),
            llama2_7b_parameters() + kClipEmbeddings + 24 * kClipLayer + 2 * kClip + kProjector);
  EXPECT_EQ(parameter_count(*a), 7'063'427'072);
}

// LLaVA-NeXT's Mistral-7B text model takes MistralConfig's 14,336-wide MLP from the config
// and its 8 KV heads; image_newline adds one 4,096 vector. Pinpoints read as written.
TEST(Llava, NextReadsMistralDefaultsAndItsGrid) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kNext) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->num_key_value_heads, 8);
  EXPECT_EQ(a->vision.grid_pinpoints,
            (std::vector<std::int64_t>{336, 672, 672, 336, 672, 672, 1008, 336, 336, 1008}));
  const std::int64_t h = 4096;
  const std::int64_t mistral =
      2 * 32064 * h + 32 * (h * (h + 2 * 1024) + h * h + 3 * h * 14336 + 2 * h) + h;
  EXPECT_EQ(parameter_count(*a),
            mistral + kClipEmbeddings + 24 * kClipLayer + 2 * kClip + kProjector + h);
}

// vLLM 0.21 on one H200: the float16 weights are the language model, vLLM's 4,096 x 128 RoPE
// cache, CLIP's embeddings and 23 layers (no post_layernorm), the int64 position_ids
// (577 entries) and the projector. The default 8,192-token budget profiles 14 images of 576
// embeddings (8,078 positions with their class tokens). From the second layer on the stream
// is pre_layrnorm's output (held by the encoder's pool), the layer's input and the attention's
// residual sum; the MLP runs QuickGELU natively (custom ops off under torch.compile): the peak
// is those three, layer_norm2, fc1 and two of its intermediates: 4d + 3i above the pixels.
// Held after: the pixel values (14 x 3 x 336 x 336 x 2 B, 1 MiB kept in their block) and
// the projector's 8,064 x 4,096 output.
TEST(Llava, VllmProfilesClipOnFourteenImages) {
  const Ledger l = family_ledger("vllm", kLlava, 1, "");
  ASSERT_TRUE(l.fits());
  const std::int64_t tower = kClipEmbeddings + 23 * kClipLayer + kProjector;
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"),
            2 * (llama2_7b_parameters() + tower) + 4096 * 128 * 2 + 577 * 8);
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), 14'102'710'792);
  EXPECT_EQ(ledger_fact(l, "encoder_items"), 14);
  const std::int64_t mib = 1 << 20;
  const std::int64_t pixels = 14LL * 3 * 336 * 336 * 2;
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"), pixels + mib + 8064LL * 4096 * 2);
  const std::int64_t d = 8078LL * kClip * 2;
  const std::int64_t i = 8078LL * 4096 * 2;
  // Blocks the tensors reuse keep up to 1 MiB each beyond their size (the caching allocator
  // splits only larger remainders).
  EXPECT_GE(ledger_fact(l, "encoder_peak_bytes"), pixels + mib + 4 * d + 3 * i);
  EXPECT_LE(ledger_fact(l, "encoder_peak_bytes"), pixels + mib + 4 * d + 3 * i + 4 * mib);
  // QuickGELU's CUDA op (--enforce-eager keeps custom ops on) writes one tensor: one
  // intermediate less, the 64 MiB block of its own segment (i rounded up to 2 MiB; a remainder
  // of 1 MiB or less is not split off).
  const Ledger eager = family_ledger("vllm", kLlava, 1, "    --enforce-eager: true\n");
  EXPECT_EQ(ledger_fact(l, "encoder_peak_bytes") - ledger_fact(eager, "encoder_peak_bytes"),
            (i + 2 * mib - 1) / (2 * mib) * (2 * mib));
  // With images limited to 0 the tower and projector are not built.
  const Ledger text = family_ledger("vllm", kLlava, 1, kNoImages);
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes") - ledger_fact(text, "weights_logical_bytes"),
            2 * tower + 577 * 8);
}

// At TP 2 the tower and projector split like a decoder layer: q/k/v, fc1 and linear_1 by
// rows, out_proj, fc2 and linear_2 by inputs (whole biases); embeddings and norms whole.
TEST(Llava, VllmSplitsTheTowerOverTensorParallelRanks) {
  const Ledger two = family_ledger("vllm", kLlava, 2, "");
  const Ledger two_text = family_ledger("vllm", kLlava, 2, kNoImages);
  const std::int64_t c = kClip;
  const std::int64_t layer =
      4 * c + (3 * c * c + 3 * c) / 2 + c * c / 2 + c + (4096 * c + 4096) / 2 + 4096 * c / 2 + c;
  const std::int64_t projector = (c * 4096 + 4096) / 2 + 4096 * 4096 / 2 + 4096;
  EXPECT_EQ(
      ledger_fact(two, "weights_logical_bytes") - ledger_fact(two_text, "weights_logical_bytes"),
      2 * (kClipEmbeddings + 23 * layer + projector) + 577 * 8);
}

TEST(Llava, RefusalsSayWhy) {
  const std::string llava = public_config_dir(kLlava);
  const std::string next = public_config_dir(kNext);
  EXPECT_EQ(family_errors("sglang", kLlava, "    --tp-size: 1\n"),
            "f.yaml:7:8: " + llava +
                " (LlavaForConditionalGeneration): SGLang resolves LLaVA's CLIP tower through "
                "its model registry, which holds no CLIPVisionModel (sglang issue #13999: "
                "llava-1.5 fails to start); vLLM is modelled\n");
  EXPECT_EQ(family_errors("sglang", kNext, "    --tp-size: 1\n"),
            "f.yaml:7:8: " + next +
                " (LlavaNextForConditionalGeneration): SGLang has no LLaVA-NeXT model class "
                "(sglang issue #4062) and would serve it through its Transformers backend, "
                "which is not modelled; vLLM is modelled\n");
  const std::string tp = "    --tensor-parallel-size: 1\n";
  EXPECT_EQ(family_errors("vllm", kNext, kNoImages, 1, "0.15.0"),
            "f.yaml:7:8: " + next +
                " (LlavaNextForConditionalGeneration): vLLM 0.15.0's profile of its vision "
                "encoder is not modelled (from 0.16.0); from 0.16.0, --limit-mm-per-prompt with "
                "0 images serves its language model alone, which is modelled\n");
  EXPECT_EQ(family_errors("vllm", kLlava, tp, 1, "0.15.0"),
            "f.yaml:7:8: " + llava +
                " (LlavaForConditionalGeneration): vLLM 0.15.0's profile of its vision encoder "
                "is not modelled (from 0.16.0); from 0.10.2, --limit-mm-per-prompt with 0 "
                "images serves its language model alone, which is modelled\n");
}

// vLLM 0.16 with images limited to 0 serves LLaVA-NeXT's Mistral alone: its 16-bit weights
// and the 32,768 x 128 RoPE cache.
TEST(Llava, VllmServesLlavaNextsLanguageModelWithoutImages) {
  const Ledger l = family_ledger("vllm", kNext, 1, kNoImages, "h200", "0.16.0");
  ASSERT_TRUE(l.fits());
  const std::int64_t h = 4096;
  const std::int64_t mistral =
      2 * 32064 * h + 32 * (h * (h + 2 * 1024) + h * h + 3 * h * 14336 + 2 * h) + h;
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), 2 * mistral + 32768LL * 128 * 2);
}

// LLaVA-NeXT's largest dummy image is its 672 x 672 pinpoint: 2 x 2 crops of 336 and the
// whole image resized, 576 + 48 x 49 = 2,928 embeddings (the other pinpoints give 1,752,
// 1,776, 2,376 and 2,328). vLLM 0.21's default 8,192-token budget on one H200 profiles 2 such
// images, 10 crops through CLIP (5,770 positions); at a 16,384-token budget 5, as a real vLLM
// log of this model prints ("budget of 16384 tokens, and profiled with 5 image items"). Held:
// the pixel values (10 x 3 x 336 x 336 x 2 B), image_sizes (one 512 B block) and each image's
// merged embeddings, 2,928 x 4,096 x 2 B; the peak is CLIP's MLP as in LLaVA-1.5 over 5,770
// positions.
TEST(Llava, VllmProfilesLlavaNextsGridCrops) {
  const vllm::LlavaNextGrid grid = vllm::llava_next_dummy_grid(next_tower());
  EXPECT_EQ(grid.rows, 2);
  EXPECT_EQ(grid.columns, 2);
  EXPECT_EQ(grid.tokens, 2928);
  const Ledger l = family_ledger("vllm", kNext, 1, "");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "encoder_items"), 2);
  const std::int64_t pixels = 10LL * 3 * 336 * 336 * 2;
  EXPECT_EQ(ledger_fact(l, "encoder_held_bytes"), pixels + 512 + 2 * 2928LL * 4096 * 2);
  const std::int64_t d = 5770LL * kClip * 2;
  const std::int64_t i = 5770LL * 4096 * 2;
  const std::int64_t mib = 1 << 20;
  EXPECT_GE(ledger_fact(l, "encoder_peak_bytes"), pixels + 512 + 4 * d + 3 * i);
  EXPECT_LE(ledger_fact(l, "encoder_peak_bytes"), pixels + 512 + 4 * d + 3 * i + 6 * mib);
  const Ledger wide = family_ledger("vllm", kNext, 1, "    --max-num-batched-tokens: 16384\n");
  EXPECT_EQ(ledger_fact(wide, "encoder_items"), 5);
}

TEST(Llava, UnservedConfigsAreRefusedAtTheirKeys) {
  const auto refused = [](const std::string& folder, const std::string& name,
                          const std::string& from, const std::string& to) {
    return config_dir_errors(config_variant(folder, name, from, to));
  };
  EXPECT_NE(refused(kLlava, "llava-qwen2", "\"model_type\": \"llama\"", "\"model_type\": \"qwen2\"")
                .find("a LLaVA language model of type 'qwen2' is not modelled: gpumem serves "
                      "LLaVA's llama and mistral text models"),
            std::string::npos);
  EXPECT_NE(refused(kLlava, "llava-layer", "\"vision_feature_layer\": -2",
                    "\"vision_feature_layer\": -30")
                .find("'vision_feature_layer' -30 is not a layer of the 24 in 'vision_config'"),
            std::string::npos);
  EXPECT_NE(refused(kLlava, "llava-act", "\"patch_size\": 14,",
                    "\"patch_size\": 14, \"hidden_act\": \"gelu\",")
                .find("a CLIP tower with hidden_act 'gelu' is not modelled: gpumem models "
                      "quick_gelu (LLaVA's)"),
            std::string::npos);
  EXPECT_NE(refused(kLlava, "llava-projector", "\"projector_hidden_act\": \"gelu\"",
                    "\"projector_hidden_act\": \"quick_gelu\"")
                .find("a LLaVA projector with projector_hidden_act 'quick_gelu' is not modelled: "
                      "gpumem models gelu"),
            std::string::npos);
  // Hostile grids: a pair of one side, a zero side, a side past 2^20 pixels, a mapping; and a
  // side that is not a whole number of crops.
  const std::string grid = "\"image_grid_pinpoints\": [\n    [336, 672],";
  const std::string bad =
      "'image_grid_pinpoints' must be a non-empty list of [height, width] pairs of positive "
      "pixel counts up to 1048576";
  for (const char* to :
       {"\"image_grid_pinpoints\": [\n    [336],", "\"image_grid_pinpoints\": [\n    [0, 672],",
        "\"image_grid_pinpoints\": [\n    [336, 4611686018427387904],"}) {
    EXPECT_NE(refused(kNext, "llava-next-grid", grid, to).find(bad), std::string::npos) << to;
  }
  const std::string whole =
      "\"image_grid_pinpoints\": [\n    [336, 672],\n    [672, 336],\n    [672, 672],\n    "
      "[1008, 336],\n    [336, 1008]\n  ],";
  EXPECT_NE(
      refused(kNext, "llava-next-map", whole, "\"image_grid_pinpoints\": {\"a\": 1},").find(bad),
      std::string::npos);
  EXPECT_NE(refused(kNext, "llava-next-crop", grid, "\"image_grid_pinpoints\": [\n    [336, 700],")
                .find("an 'image_grid_pinpoints' side of 700 is not a multiple of the vision "
                      "tower's image_size 336: gpumem models grids of whole crops"),
            std::string::npos);
}

}  // namespace
}  // namespace gpumem
