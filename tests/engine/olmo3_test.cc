// OLMo 3 (Olmo3ForCausalLM) from its published config: OLMo 2's layers (Llama's projections,
// q_norm and k_norm whole on every rank, a norm after attention and one after the MLP) with
// three sliding-window layers (4,096 tokens) before each full-attention layer, and YaRN on the
// full layers only. vLLM serves it through olmo2.py; SGLang has no class for it. Every expected
// value is derived here from the config (4096 hidden, 32 layers of 32 query and 32 KV heads,
// MLP 11008, vocabulary 100278, untied head, 65,536 positions).
#include <gtest/gtest.h>

#include <string>

#include "catalog/parameter_count.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kOlmo3 = "allenai--Olmo-3-1025-7B";

constexpr std::int64_t kHidden = 4096;
constexpr std::int64_t kLayers = 32;
constexpr std::int64_t kHeadDim = 128;
constexpr std::int64_t kMlp = 11008;
constexpr std::int64_t kVocab = 100278;
constexpr std::int64_t kPaddedVocab = 100288;  // vLLM pads embedding rows to a multiple of 64
constexpr std::int64_t kPositions = 65536;

// Parameters of the checkpoint: embedding and head, per layer q/k/v/o and the MLP, q_norm and
// k_norm (4096 each: 32 KV heads x 128), two norms; the final norm.
constexpr std::int64_t kParams =
    2 * kVocab * kHidden + kLayers * (4 * kHidden * kHidden + 3 * kHidden * kMlp + 4 * kHidden) +
    kHidden;

TEST(Olmo3, ParameterCountFollowsTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kOlmo3) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kOlmo2);
  EXPECT_EQ(a->sliding_window, 4096);
  EXPECT_EQ(a->attention_layers(0, kLayers), kLayers);
  for (std::int64_t i = 0; i < kLayers; ++i) {
    EXPECT_EQ(a->is_sliding_layer(i), (i + 1) % 4 != 0) << i;
  }
  EXPECT_EQ(parameter_count(*a), kParams);
  // The count the Hugging Face page gives the 7B (tests/data/model-configs SOURCE.md).
  EXPECT_EQ(parameter_count(*a), 7'298'011'136LL);
}

TEST(Olmo3, VllmScalesRopeOnTheFullLayersAndGroupsTheSlidingOnes) {
  const std::string args = "    --max-model-len: 65536\n";
  const Ledger l = family_ledger("vllm", kOlmo3, 1, args, "h200", "0.20.0");
  ASSERT_TRUE(l.fits());
  // Two RoPE caches of the model dtype: the sliding layers' unscaled one over 65,536 positions,
  // the full layers' YaRN one over 8,192 x 8; the vocabulary padded by 10 rows in both the
  // embedding and the head.
  const std::int64_t rope = 2 * kPositions * kHeadDim * 2;
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"),
            2 * kParams + 2 * (kPaddedVocab - kVocab) * kHidden * 2 + rope);
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), 14'629'740'544LL);
  // One page is 16 tokens of one layer's K and V; the 24 sliding and 8 full layers make four
  // groups of eight, each tensor shared by one layer of every group.
  const std::int64_t page = 16 * 32 * kHeadDim * 2 * 2;
  EXPECT_EQ(ledger_fact(l, "kv_page_bytes"), page);
  EXPECT_EQ(ledger_fact(l, "kv_layers_per_group"), 8);
  const std::int64_t blocks = ledger_fact(l, "kv_bytes") / (8 * page);
  EXPECT_EQ(ledger_fact(l, "kv_blocks"), blocks);
  // vLLM 0.20's token log: the blocks of one group's share, 16 tokens each.
  EXPECT_EQ(ledger_fact(l, "kv_tokens"), blocks / 4 * 16);
}

TEST(Olmo3, TransformersFivePerLayerTypeRopeParametersReadAlike) {
  // transformers 5 writes rope_theta and the scaling per layer type.
  const std::string five = config_variant(
      kOlmo3, "olmo3-rope-parameters",
      "\"rope_scaling\": {\n    \"attention_factor\": 1.2079441541679836,\n    \"beta_fast\": 32.0,"
      "\n    \"beta_slow\": 1.0,\n    \"factor\": 8.0,\n    \"original_max_position_embeddings\": "
      "8192,\n    \"rope_type\": \"yarn\"\n  },\n  \"rope_theta\": 500000.0,",
      "\"rope_parameters\": {\"full_attention\": {\"rope_type\": \"yarn\", \"rope_theta\": "
      "500000.0, \"factor\": 8.0, \"original_max_position_embeddings\": 8192, "
      "\"attention_factor\": 1.2079441541679836, \"beta_fast\": 32.0, \"beta_slow\": 1.0}, "
      "\"sliding_attention\": {\"rope_type\": \"default\", \"rope_theta\": 500000.0}},");
  Diagnostics diags;
  Result<Architecture> flat = load_hf_config(public_config_dir(kOlmo3) + "/config.json", diags);
  Result<Architecture> per_type = load_hf_config(five + "/config.json", diags);
  ASSERT_TRUE(flat.ok() && per_type.ok()) << diags.to_string();
  EXPECT_EQ(per_type->rope_scaling.type, RopeType::kYarn);
  EXPECT_EQ(per_type->rope_scaling.original_max_position_embeddings, 8192);
  EXPECT_EQ(per_type->rope_theta, 500000.0);
  EXPECT_EQ(per_type->rope_scaling, flat->rope_scaling);
}

TEST(Olmo3, SglangAndOlderVllmReleasesAreRefusedByName) {
  const std::string tp = "    --tp-size: 1\n";
  EXPECT_EQ(family_errors("sglang", kOlmo3, tp),
            "f.yaml:7:8: " + public_config_dir(kOlmo3) +
                " (Olmo3ForCausalLM): SGLang has no model class for OLMo 3 "
                "(models/olmo2.py serves Olmo2ForCausalLM, without sliding windows); vLLM is "
                "modelled\n");
  EXPECT_EQ(family_errors("vllm", kOlmo3, "    --max-model-len: 4096\n", 1, "0.10.2"),
            "f.yaml:4:12: Olmo3ForCausalLM is not served by vLLM 0.10.2 (from 0.11.0)\n");
}

}  // namespace
}  // namespace gpumem
