// IBM Granite 4.0-H (GraniteMoeHybridForCausalLM) from its config in both engines: 36 Mamba-2
// layers and 4 attention layers without RoPE, each followed by 72 routed experts behind a
// replicated gate and a shared MLP; the Mamba-2 state per request in each engine's dtype; the
// tied head built then freed; and what each engine refuses; every expected value derived here
// from the config.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kSmall = "ibm-granite--granite-4.0-h-small";

constexpr std::int64_t kHidden = 4096;
constexpr std::int64_t kMambaLayers = 36;
constexpr std::int64_t kAttentionLayers = 4;
constexpr std::int64_t kVocab = 100352;       // 64 x 1568: no padding
constexpr std::int64_t kInner = 2 * kHidden;  // mamba_expand x hidden = 128 heads x 64
constexpr std::int64_t kMambaHeads = 128;
constexpr std::int64_t kState = 128;

// One rank's Mamba-2 mixer at TP `tp`: its one group (B and C) is copied to every rank, so the
// conv width is inner / tp + 2 x 128; in_proj yields z, x, B, C and dt; conv1d with its bias;
// dt_bias, A (float32, counted here as two bfloat16 halves) and D per head; the gated norm over
// inner / tp; out_proj.
constexpr std::int64_t mamba_params(std::int64_t tp) {
  const std::int64_t inner = kInner / tp;
  const std::int64_t heads = kMambaHeads / tp;
  const std::int64_t conv = inner + 2 * kState;
  return kHidden * (inner + conv + heads) + conv * (4 + 1) + 4 * heads + inner + inner * kHidden;
}

// One rank's attention: q of 32 / tp heads, k and v of 8 / tp, all of 128; no bias, no RoPE.
constexpr std::int64_t attention_params(std::int64_t tp) {
  return kHidden * (32 + 16) / tp * 128 + 32 / tp * 128 * kHidden;
}

// One rank's feed-forward: the replicated gate [72, hidden], w13 and w2 of the 72 experts over
// 768 / tp columns, the shared gated MLP over 1536 / tp.
constexpr std::int64_t ffn_params(std::int64_t tp) {
  return 72 * kHidden + 72 * 3 * kHidden * (768 / tp) + 3 * kHidden * (1536 / tp);
}

// What one GPU of `tp` holds once loaded, in bfloat16 units: the embedding (the tied head's own
// weight was freed), the layers with two RMSNorms each, the final norm.
constexpr std::int64_t rank_units(std::int64_t tp) {
  return kVocab / tp * kHidden + kMambaLayers * mamba_params(tp) +
         kAttentionLayers * attention_params(tp) + 40 * (ffn_params(tp) + 2 * kHidden) + kHidden;
}

TEST(GraniteHybrid, ParameterCountFollowsTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kSmall) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kGraniteHybrid);
  EXPECT_EQ(a->rotary_dim, 0);  // position_embedding_type nope
  // rank_units counts A (float32) as two units per head; the checkpoint's A_log is one.
  EXPECT_EQ(parameter_count(*a), rank_units(1) - kMambaLayers * kMambaHeads);
  // IBM: "32B total parameters"; no safetensors total_size was found (SOURCE.md).
  EXPECT_EQ(parameter_count(*a), 32'207'337'984LL);
}

TEST(GraniteHybrid, SmallKeepsMamba2StateBesideTheKvOfFourLayers) {
  const Ledger sglang = family_ledger("sglang", kSmall, 2, "", "h200", "0.5.10");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), 2 * rank_units(2));
  // The 4 attention layers' 4 of 8 KV heads of 128, bfloat16.
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), kAttentionLayers * 2 * 4 * 128 * 2);
  // Per request and Mamba layer: a bfloat16 conv window of (4096 + 256) x 3 and a float32
  // state of 64 heads x 64 x 128 (mamba2_state_dtype's default).
  EXPECT_EQ(ledger_fact(sglang, "mamba_cache_per_req_bytes"),
            kMambaLayers * ((kInner / 2 + 2 * kState) * 3 * 2 + 64 * 64 * kState * 4));

  const Ledger vllm = family_ledger("vllm", kSmall, 2, "");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), 2 * rank_units(2));
  // vLLM keeps the state in the model dtype ("auto"): 64 x 64 x 128 x 2 + the conv window,
  // 1,074,688 B; the attention block is the smallest multiple of 16 tokens of 4 x 128 x 2 x 2 B
  // holding it: 528 tokens.
  const std::int64_t state = 64 * 64 * kState * 2 + (kInner / 2 + 2 * kState) * 3 * 2;
  const std::int64_t token = 2 * 4 * 128 * 2;
  const std::int64_t block = 16 * ((state + 16 * token - 1) / (16 * token));
  EXPECT_EQ(block, 528);
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), block * token);
}

TEST(GraniteHybrid, SglangServesItFrom0510) {
  EXPECT_EQ(family_errors("sglang", kSmall, "    --tp-size: 2\n", 2, "0.5.9"),
            "f.yaml:4:12: GraniteMoeHybridForCausalLM is not served by SGLang 0.5.9 (from "
            "0.5.10)\n");
}

std::string granite_variant(const std::string& name, const std::string& from,
                            const std::string& to) {
  return config_variant(kSmall, "granite-" + name, from, to);
}

// Keys whose defaults differ between transformers and SGLang's config class are required; the
// Mamba-2 heads must tile mamba_expand x hidden; a dense variant (no experts) keeps the shared
// MLP only.
TEST(GraniteHybrid, ConfigsAreReadAsBothEnginesWouldOrRefused) {
  const std::pair<std::string, std::string> cases[] = {
      {granite_variant("heads", "\"mamba_n_heads\": 128", "\"mamba_n_heads\": 96"),
       ":56:19: 'mamba_d_head' 64 x 'mamba_n_heads' 96 is not 'mamba_expand' x 'hidden_size' "
       "(8192)\n"},
      {granite_variant("nolayers", "\"layer_types\"", "\"layer_kinds\""),
       ":1:1: missing key 'layer_types' in 'config'\n"},
      {granite_variant("kind", "\"attention\",\n    \"mamba\"", "\"moe\",\n    \"mamba\""),
       ":10:18: unknown layer type 'moe'; expected mamba or attention\n"},
  };
  for (const auto& [dir, message] : cases) {
    EXPECT_EQ(config_dir_errors(dir), dir + "/config.json" + message);
  }
  const std::string dense =
      granite_variant("dense", "\"num_local_experts\": 72", "\"num_local_experts\": 0");
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(dense + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(parameter_count(*a), 32'207'337'984LL - 40 * (72 * kHidden + 72 * 3 * kHidden * 768));
}

}  // namespace
}  // namespace gpumem
