// Nemotron 3 Nano (NemotronHForCausalLM with MoE layers, 'E' in hybrid_override_pattern) from its
// config in both engines: 23 Mamba-2, 6 attention and 23 MoE layers, each MoE layer a float32
// router with its correction bias, 128 non-gated (relu2) experts and a non-gated shared MLP; the
// SSM state in float32 where the config asks for it; what each engine refuses. Every expected
// value is derived here from the config.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kNano = "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16";

constexpr std::int64_t kHidden = 2688;
constexpr std::int64_t kVocab = 131072;

// One rank of TP 2, in bytes. A Mamba-2 mixer: 32 of 64 heads of 64 (inner 2048), 4 of the 8
// groups with a state of 128, so a conv width of 2048 + 2 x 4 x 128 = 3072: conv1d with bias,
// in_proj (z, x, B, C, dt), dt_bias and D in bfloat16, A in float32, the gated norm, out_proj.
constexpr std::int64_t kMambaBytes =
    2 * (3072 * 4 + 3072 + (2048 + 3072 + 32) * kHidden + 32 + 32 + 2048 + kHidden * 2048) + 4 * 32;
// Attention: 16 of 32 query heads and one of the 2 KV heads, all of 128; no RoPE.
constexpr std::int64_t kAttentionBytes = 2 * ((2048 + 256) * kHidden + kHidden * 2048);
// An MoE layer: the float32 router [128, 2688] and e_score_correction_bias [128]; w13 holding only
// the up half [128, 1856 / 2, 2688] and w2 [128, 2688, 928]; the shared MLP's up and down over
// 3712 / 2.
constexpr std::int64_t kMoeBytes =
    4 * (128 * kHidden + 128) + 2 * (2 * 128 * 928 * kHidden + 2 * 1856 * kHidden);
// Embedding and untied head of 131072 / 2 rows, 52 layer norms and the final norm.
constexpr std::int64_t kRankBytes = 2 * (2 * (kVocab / 2) * kHidden + 53 * kHidden) +
                                    23 * kMambaBytes + 6 * kAttentionBytes + 23 * kMoeBytes;

// One Mamba layer's state per request at TP 2: the bfloat16 conv window of 3072 x 3 and 32 heads
// x 64 x 128 of SSM state, `ssm_bytes` each.
constexpr std::int64_t state_bytes(std::int64_t ssm_bytes) {
  return 3072 * 3 * 2 + 32 * 64 * 128 * ssm_bytes;
}

TEST(NemotronMoe, ParameterCountFollowsTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kNano) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  std::int64_t moe_layers = 0;
  for (std::int64_t l = 0; l < a->num_hidden_layers; ++l) moe_layers += a->is_moe_layer(l) ? 1 : 0;
  EXPECT_EQ(moe_layers, 23);
  // llama.cpp's n_params for the Nemotron-3-Nano-30B-A3B GGUFs.
  EXPECT_EQ(parameter_count(*a), 31'577'940'288LL);
}

TEST(NemotronMoe, NanoInBothEnginesAtTp2) {
  const Ledger sglang = family_ledger("sglang", kNano, 2, "");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), kRankBytes);
  EXPECT_EQ(kRankBytes, 31'601'833'472LL);
  // SGLang keeps the SSM state in float32 (mamba2_state_dtype) whatever the config says.
  EXPECT_EQ(ledger_fact(sglang, "mamba_cache_per_req_bytes"), 23 * state_bytes(4));
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), 6 * 2 * 128 * 2);

  // vLLM from 0.13 takes the config's mamba_ssm_cache_dtype (float32) for "auto": a state of
  // 1,067,008 B, so attention blocks of 16 x ceil(1,067,008 / (16 x 512)) = 2,096 tokens of 512 B.
  const Ledger vllm = family_ledger("vllm", kNano, 2, "");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), kRankBytes);
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), 2096 * 512);
  // Before, "auto" followed --mamba-cache-dtype: bfloat16, 542,720 B, blocks of 1,072 tokens.
  const Ledger v012 = family_ledger("vllm", kNano, 2, "", "h200", "0.12.0");
  ASSERT_TRUE(v012.fits());
  EXPECT_EQ(ledger_fact(v012, "kv_page_bytes"), 1072 * 512);
  EXPECT_EQ(state_bytes(2), 542'720);
}

TEST(NemotronMoe, ReleasesBeforeTheMoeLayersAreRefused) {
  EXPECT_EQ(family_errors("sglang", kNano, "    --tp-size: 2\n", 2, "0.5.5"),
            "f.yaml:4:12: NemotronHForCausalLM is not served by SGLang 0.5.5 (from 0.5.6)\n");
  EXPECT_EQ(family_errors("vllm", kNano, "    --tensor-parallel-size: 2\n", 2, "0.11.0"),
            "f.yaml:4:12: NemotronHForCausalLM is not served by vLLM 0.11.0 (from 0.11.1)\n");
}

TEST(NemotronMoe, LatentMoeIsRefused) {
  const std::string from = "\"moe_intermediate_size\": 1856,";
  const std::string dir =
      config_variant(kNano, "nemotron-latent", from, from + "\n  \"moe_latent_size\": 1024,");
  Diagnostics diags;
  EXPECT_FALSE(load_hf_config(dir + "/config.json", diags).ok());
  EXPECT_EQ(diags.to_string(), dir + "/config.json:29:22: NemotronH's latent MoE " +
                                   "('moe_latent_size') is not modelled\n");
}

}  // namespace
}  // namespace gpumem
