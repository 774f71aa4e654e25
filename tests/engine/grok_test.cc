// Grok 2 (Grok1ForCausalLM, xai-org/grok-2) as SGLang's grok.py serves it: per layer GQA
// attention (64 query heads, 8 KV heads of 128, no biases), a float32 router over 8 experts
// of 16,384 (gated GELU), residual_moe's dense 32,768-wide MLP beside them, four RMSNorms, and
// a scaled RoPE cache of its own (8,192 x 16 positions, float32) beside get_rope's shared one;
// an untied LM head. vLLM's Grok 2 form is not pinned to a release (refused by name).
#include <gtest/gtest.h>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kGrok2 = "xai-org--grok-2";
constexpr std::int64_t kHidden = 8192;

// The published size of the checkpoint is 269.5B parameters (539 GB in bfloat16; the
// bundled config's SOURCE.md): embeddings and head 131,072 x 8,192 each; per layer q/k/v
// (8,192 + 2 x 1,024 rows), o_proj, the [8, 8,192] router, 8 experts of three 8,192 x 16,384
// matrices, the residual MLP's three 8,192 x 32,768 and four norms; the final norm.
TEST(Grok, ParameterCountIsThePublishedSize) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kGrok2) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kGrok);
  EXPECT_EQ(a->per_layer_rope_rows, 131072);
  const std::int64_t h = kHidden;
  const std::int64_t layer =
      h * (h + 2 * 1024) + h * h + 8 * h + 8 * 3 * h * 16384 + 3 * h * 32768 + 4 * h;
  EXPECT_EQ(parameter_count(*a), 2 * 131072 * h + 64 * layer + h);
  EXPECT_EQ(parameter_count(*a), 269'515'497'472);
}

// One of 8 H200s in bfloat16: each rank holds 8 of the 64 query heads and one KV head, a
// 2,048-wide slice of every expert and a 4,096-wide slice of the residual MLP, 16,384 rows of
// the embedding and of the head; the router, the norms and both RoPE caches whole. The RoPE
// caches alone are 65 x 64 MiB: one shared (131,072 positions, the context) and one per layer.
TEST(Grok, SglangShardsGrokTwoOverEightRanks) {
  const Ledger l = family_ledger("sglang", kGrok2, 8, "");
  ASSERT_TRUE(l.fits());
  const std::int64_t h = kHidden;
  const std::int64_t rope = std::int64_t{131072} * 128 * 4;
  const std::int64_t layer = 2 * ((1024 + 2 * 128) * h + h * 1024) + rope + 8 * h * 4 +
                             2 * 8 * (2 * 2048 * h + h * 2048) + 2 * (2 * 4096 * h + h * 4096) +
                             4 * h * 2;
  const std::int64_t weights = 2 * 2 * (131072 / 8) * h + 64 * layer + h * 2 + rope;
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), weights);
  EXPECT_EQ(weights, 71'760'363'520);
  // 64 layers of one KV head of 128, keys and values, bfloat16.
  EXPECT_EQ(ledger_fact(l, "kv_cell_bytes"), 64 * 2 * 128 * 2);
  // xAI's launch line quantizes online (--quantization fp8): the linears and experts drop to
  // one byte an element, with a float32 scale per output row of each linear (qkv 1,280, o,
  // gate_up and down 8,192 rows) and per expert of w13 and w2; the router, the norms,
  // embeddings, head and RoPE caches stay.
  const Ledger fp8 = family_ledger("sglang", kGrok2, 8, "    --quantization: fp8\n");
  ASSERT_TRUE(fp8.fits());
  const std::int64_t fp8_layer = (1024 + 2 * 128) * h + h * 1024 + 8 * (2 * 2048 * h + h * 2048) +
                                 2 * 4096 * h + h * 4096 + (1280 + 3 * h) * 4 + 2 * 8 * 4 + rope +
                                 8 * h * 4 + 4 * h * 2;
  EXPECT_EQ(ledger_fact(fp8, "weights_logical_bytes"),
            2 * 2 * (131072 / 8) * h + 64 * fp8_layer + h * 2 + rope);
  EXPECT_EQ(ledger_fact(fp8, "weights_logical_bytes"), 38'346'772'480);
}

TEST(Grok, AHostileRopeScalingIsRefusedAtItsKey) {
  const std::string dir = config_variant(kGrok2, "grok-scaling", "\"scaling_factor\": 16.0",
                                         "\"scaling_factor\": 1e30");
  EXPECT_NE(config_dir_errors(dir).find("'scaling_factor' must be in [1, 1024]"), std::string::npos)
      << config_dir_errors(dir);
}

TEST(Grok, VllmIsRefusedByName) {
  EXPECT_EQ(family_errors("vllm", kGrok2, "    --tensor-parallel-size: 8\n", 8),
            "f.yaml:7:8: " + public_config_dir(kGrok2) +
                " (Grok1ForCausalLM): the vLLM release that serves Grok 2's layout (grok1.py's "
                "residual MoE) is not pinned; SGLang is modelled\n");
}

}  // namespace
}  // namespace gpumem
