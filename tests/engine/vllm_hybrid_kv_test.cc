// vLLM's hybrid KV cache of a Gated DeltaNet model (Qwen3-Next-80B-A3B), checked against a
// real v0.10.2 start-up at TP 2 (a public copy found with find_string id 7292846353, searched
// "Setting attention block size to 544 tokens"): "Setting attention block size to 544 tokens",
// "Padding mamba page size by 1.49%", "Available KV cache memory: 44.59 GiB", "GPU KV cache size:
// 973,760 tokens", "Maximum concurrency for 262,144 tokens per request: 14.77x".
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/architecture.h"
#include "engine/vllm/log_lines.h"
#include "engine/vllm/model_facts.h"
#include "support/model_configs.h"
#include "support/test_catalogs.h"

namespace gpumem::vllm {
namespace {

Architecture qwen3_next() {
  Diagnostics diags;
  Result<ModelEntry> e = test_catalogs().models.find("qwen3-next-80b-a3b-instruct", diags);
  EXPECT_TRUE(e.ok()) << diags.to_string();
  return e.ok() ? e->architecture : Architecture{};
}

ModelFacts facts(const Architecture& a, const Version& v, int tp, EngineFlags flags = {}) {
  Diagnostics diags;
  const ModelFacts f = resolve_model_facts(a, flags, *test_catalogs().gpus.find("h200"),
                                           rules_for(v), tp, false, diags);
  EXPECT_TRUE(diags.empty()) << diags.to_string();
  return f;
}

TEST(VllmHybridKv, AttentionBlockHoldsOneStateAndTheStateIsPaddedToIt) {
  const Architecture a = qwen3_next();
  // TP 2: conv 3 x 4096 x 2 B + state 16 x 128 x 128 x 2 B = 548,864 B; one token's K and V
  // of one head of 256 is 1,024 B: 16 x cdiv(548,864, 16,384) = 544 tokens, page 557,056 B
  // (1.49 % padding).
  const ModelFacts f = facts(a, {0, 10, 2, 0}, 2);
  EXPECT_EQ(f.mamba_state_bytes, 548'864);
  EXPECT_EQ(f.block_size, 544);
  EXPECT_EQ(f.mamba_page_bytes, 557'056);
  EXPECT_EQ(log_hybrid_block_size(f.block_size),
            "Setting attention block size to 544 tokens to ensure that attention page size is >= "
            "mamba page size.");
  EXPECT_EQ(log_mamba_page_padding(f.mamba_state_bytes, f.mamba_page_bytes),
            "Padding mamba page size by 1.49% to ensure that mamba page size and attention page "
            "size are exactly equal.");
  // TP 8: 137,216 B of state; 144 tokens.
  EXPECT_EQ(facts(a, {0, 21, 0, 0}, 8).block_size, 144);
  // A float32 temporal state doubles it: 16 x cdiv(1,073,152, 16,384) = 1,056 tokens.
  EngineFlags fp32;
  fp32.mamba_ssm_cache_dtype = "float32";
  EXPECT_EQ(facts(a, {0, 21, 0, 0}, 2, fp32).block_size, 1056);
}

TEST(VllmHybridKv, TheLoggedV0_10_2StartUpFollows) {
  const Architecture a = qwen3_next();
  const ModelFacts f = facts(a, {0, 10, 2, 0}, 2);
  EXPECT_EQ(f.mamba_pages_per_request, 1);  // prefix caching off for hybrids before "align"
  Result<KvCacheLayout> layout = group_kv_layers(kv_layer_specs(a, f, 2, {0, 48}), true);
  ASSERT_TRUE(layout.ok());
  // 12 attention layers and 36 GDN layers: groups of 12, one attention and three GDN groups.
  EXPECT_EQ(layout->group_size, 12);
  EXPECT_EQ(layout->groups.size(), 4u);
  EXPECT_TRUE(layout->paddings.empty());
  EXPECT_EQ(layout->page, bytes(557'056));
  // 44.59 GiB as printed: 7,162 blocks of 12 pages.
  const Bytes available = bytes(static_cast<std::int64_t>(44.59 * (1LL << 30)));
  const std::int64_t blocks = num_blocks(available, *layout);
  EXPECT_EQ(blocks, 7162);
  const VersionRules rules = rules_for({0, 10, 2, 0});
  EXPECT_EQ(logged_token_count(blocks, *layout, 262144, 8192, rules), 973'760);
  EXPECT_EQ(std::round(100 * max_concurrency(blocks, *layout, 262144, 8192)) / 100, 14.77);
}

// vllm issue #40691 (https://github.com/vllm-project/vllm/issues/40691, tests/data/engine-logs/
// vllm-h20-x1-qwen3.5-27b-kv-size-log.log): Qwen3.5-27B on one H20 at --max-model-len 32768,
// before v0.21.0, prints "GPU KV cache size: 290,864 tokens" and "Maximum concurrency for
// 32,768 tokens per request: 33.04x". Qwen3.6-27B's config (tests/data) gives the shape: the
// float32 temporal state of mamba_ssm_dtype (3,207,168 B per layer) raises the block to 784
// tokens of 4,096 B; 16 attention and 48 GDN layers make four groups of 16. 1,487 blocks give
// both printed figures, with one state page per request.
TEST(VllmHybridKv, Qwen35FloatStateAndTheLoggedFigures) {
  Diagnostics diags;
  Result<Architecture> a =
      load_hf_config(public_config_dir("Qwen--Qwen3.6-27B") + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  const ModelFacts f = facts(*a, {0, 20, 0, 0}, 1);
  EXPECT_EQ(f.mamba_state_bytes, 3 * 10240 * 2 + 48 * 128 * 128 * 4);
  EXPECT_EQ(f.block_size, 784);
  Result<KvCacheLayout> layout = group_kv_layers(kv_layer_specs(*a, f, 1, {0, 64}), true);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->group_size, 16);
  EXPECT_EQ(layout->groups.size(), 4u);
  EXPECT_EQ(logged_token_count(1487, *layout, 32768, 16384, rules_for({0, 20, 0, 0})), 290'864);
  EXPECT_EQ(std::round(100 * max_concurrency(1487, *layout, 32768, 16384)) / 100, 33.04);
}

TEST(VllmHybridKv, AlignModeHoldsTwoStatePagesPerRequest) {
  const Architecture a = qwen3_next();
  EngineFlags prefix;
  prefix.enable_prefix_caching_given = true;
  const ModelFacts on = facts(a, {0, 21, 0, 0}, 2, prefix);
  EXPECT_EQ(on.mamba_pages_per_request, 2);
  EXPECT_EQ(facts(a, {0, 21, 0, 0}, 2).mamba_pages_per_request, 1);
  EXPECT_EQ(facts(a, {0, 13, 0, 0}, 2, prefix).mamba_pages_per_request, 1);
  Result<KvCacheLayout> layout = group_kv_layers(kv_layer_specs(a, on, 2, {0, 48}), true);
  ASSERT_TRUE(layout.ok());
  // One request: cdiv(262,144, 544) = 482 attention blocks and 2 pages in each GDN group.
  EXPECT_DOUBLE_EQ(max_concurrency(8418, *layout, 262144, 8192), 8418.0 / (482 + 3 * 2));
}

}  // namespace
}  // namespace gpumem::vllm
