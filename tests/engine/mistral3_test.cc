// Mistral Small 3.1 (Mistral3ForConditionalGeneration) from its published config: the Mistral
// language model beside a Pixtral ViT. vLLM from 0.10.2 builds no tower when images are limited to
// 0 (mistral3.py, PR #22299), and that language model alone is simulated; with images, vLLM's
// encoder profile is refused by name. SGLang builds the Pixtral tower and profiles nothing.
#include <gtest/gtest.h>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kSmall = "mistralai--Mistral-Small-3.1-24B-Instruct-2503";
const std::string kNoImages = "    --limit-mm-per-prompt: '{\"image\": 0}'\n";

// The language model on one of 2 ranks: 40 layers of q (16 of 32 heads of 128), k and v (4 of 8
// KV heads), o, the gated MLP (32,768 / 2 wide) and two norms; embedding and untied head of
// 131,072 / 2 rows; the final norm; vLLM's bfloat16 RoPE cache of 131,072 x 128.
constexpr std::int64_t kHidden = 5120;
constexpr std::int64_t kRankWeights =
    2 * (2 * 65536 * kHidden +
         40 * (kHidden * (2048 + 2 * 512) + 2048 * kHidden + 3 * kHidden * 16384 + 2 * kHidden) +
         kHidden) +
    131072LL * 128 * 2;

TEST(Mistral3, VllmServesTheLanguageModelWhenImagesAreLimitedToZero) {
  const Ledger l = family_ledger("vllm", kSmall, 2, kNoImages, "h200", "0.11.0");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), kRankWeights);
  // 40 layers of 4 KV heads of 128 per rank, bfloat16, in 16-token blocks.
  EXPECT_EQ(ledger_fact(l, "kv_page_bytes"), 16 * 4 * (128 + 128) * 2);
  EXPECT_EQ(ledger_fact(l, "kv_layers_per_group"), 40);
}

TEST(Mistral3, VllmsImageProfileIsRefusedByName) {
  const std::string path = public_config_dir(kSmall);
  EXPECT_EQ(family_errors("vllm", kSmall, "    --tensor-parallel-size: 2\n", 2),
            "f.yaml:7:8: " + path +
                " (Mistral3ForConditionalGeneration) is multimodal: vLLM profiles its vision "
                "encoder on dummy images, which gpumem does not model; from vLLM 0.10.2, "
                "--limit-mm-per-prompt with 0 images serves its language model alone, which is "
                "modelled\n");
  // vLLM 0.10.1 still built the tower whatever the limit.
  EXPECT_NE(
      family_errors("vllm", kSmall, "    --tensor-parallel-size: 2\n" + kNoImages, 2, "0.10.1")
          .find("is multimodal"),
      std::string::npos);
}

// SGLang builds the tower (pixtral.py PixtralHFVisionModel) and runs no encoder at start-up: the
// weights are the language model's, the tower's split over TP as VisionAttention and
// PixtralHFMLP split it, the projector whole on every rank, and transformers' float32 rotary
// table of (1540 / 14)^2 positions; its vision factor (24 layers of width 1024: 0.95) scales the
// automatic fraction.
TEST(Mistral3, SglangBuildsThePixtralTowerOnEveryRank) {
  const Ledger l = family_ledger("sglang", kSmall, 2, "", "h200");
  ASSERT_TRUE(l.fits());
  const std::int64_t h = 1024;
  const std::int64_t layer =
      2 * h + 3 * (h / 2) * h + h * (h / 2) + 2 * (4096 / 2) * h + h * (4096 / 2);
  const std::int64_t tower = 2 * (3 * 14 * 14 * h + h + 24 * layer) + 110 * 110 * 64 * 4;
  const std::int64_t projector = 2 * (h + h * 4 * h + h * kHidden + kHidden * kHidden);
  // The language model as vLLM's test above counts it, with SGLang's float32 cos/sin cache
  // (131,072 positions x 128) in place of vLLM's bfloat16 one.
  const std::int64_t language = kRankWeights - 131072LL * 128 * 2 + 131072LL * 128 * 4;
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), language + tower + projector);
  EXPECT_EQ(tower + projector, 478'360'576);
  const Fact* source = l.fact("mem_fraction_static_source");
  ASSERT_NE(source, nullptr);
  EXPECT_NE(std::get<std::string>(source->value).find("times 0.95 for the vision tower"),
            std::string::npos);
}

// Its parameters as the catalog counts them: the language model (23,572,403,200) and the Pixtral
// tower with the projector (438,958,080): 24.0 B, as published ("24B").
TEST(Mistral3, ParameterCountIncludesThePixtralTowerAndProjector) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kSmall) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  ASSERT_EQ(a->vision.kind, VisionKind::kPixtral);
  const std::int64_t h = 1024;
  const std::int64_t vision = 3 * 14 * 14 * h + h + 24 * (2 * h + 4 * h * h + 3 * h * 4096) + h +
                              h * 4 * h + h * kHidden + kHidden * kHidden;
  EXPECT_EQ(vision, 438'958'080);
  EXPECT_EQ(parameter_count(*a), 23'572'403'200 + vision);
}

// A Mistral 3 config whose vision tower is not Pixtral is refused at its model_type.
TEST(Mistral3, AVisionTowerOtherThanPixtralIsRefused) {
  const std::string dir = config_variant(kSmall, "mistral3-siglip", "\"model_type\": \"pixtral\"",
                                         "\"model_type\": \"siglip_vision_model\"");
  Diagnostics diags;
  EXPECT_FALSE(load_hf_config(dir + "/config.json", diags).ok());
  const std::string errors = diags.to_string();
  EXPECT_EQ(errors.substr(errors.find(": ") + 2),
            "vision tower 'siglip_vision_model' is not modelled: gpumem models Mistral 3's "
            "pixtral\n");
}

}  // namespace
}  // namespace gpumem
