// SGLang's state cache of hybrid linear-attention models (engine/sglang/mamba_cache.h), checked
// against the figures a real start-up printed: ktransformers issue #1870
// (https://github.com/kvcache-ai/ktransformers/issues/1870, tests/data/engine-logs/
// sglang-rtx4090-x2-qwen3.5-397b-a17b-fp8-cpuoffload.log), Qwen3.5-397B-A17B at TP 2 with
// --mem-fraction-static 0.85: "Load weight end. ... avail mem=19.08 GB, mem usage=3.76 GB" and
// "Mamba Cache is allocated. max_mamba_cache_size: 82, conv_state size: 0.13GB, ssm_state
// size: 7.29GB ". Its 60 layers attend in full every fourth layer (45 Gated DeltaNet layers of
// 16 key and 64 value heads of 128, kernel 4).
#include <gtest/gtest.h>

#include "engine/sglang/kv_sizing.h"
#include "engine/sglang/mamba_cache.h"

namespace gpumem::sglang {
namespace {

Architecture qwen35_397b() {
  Architecture a;
  a.num_hidden_layers = 60;
  for (std::int64_t i = 0; i < 60; ++i) {
    a.layer_types.push_back((i + 1) % 4 == 0 ? LayerAttention::kFull : LayerAttention::kLinear);
  }
  a.linear = LinearAttentionConfig{
      LinearKind::kGatedDeltaNet, 16, 64, 128, 128, 4, false, std::nullopt, std::nullopt};
  return a;
}

TEST(SglangMambaCache, StateShapePerRankAndRequest) {
  const MambaStateShape s = linear_state_shape(qwen35_397b(), 2, 4);
  EXPECT_EQ(s.layers, 45);
  EXPECT_EQ(s.conv_bytes, 6144 * 3 * 2);       // (2 x 16 x 128 + 64 x 128) / 2 x (4 - 1) bf16
  EXPECT_EQ(s.ssm_bytes, 32 * 128 * 128 * 4);  // 64 / 2 value heads x 128 x 128 float32
  EXPECT_EQ(s.per_request(), 96'030'720);
  // --mamba-ssm-dtype bfloat16 halves the temporal state only.
  EXPECT_EQ(linear_state_shape(qwen35_397b(), 2, 2).ssm_bytes, 32 * 128 * 128 * 2);
}

TEST(SglangMambaCache, SlotsFromTheLoggedBudgetAreTheLoggedOnes) {
  // rest = A - F x (1 - 0.85) with F = A + mem usage = 22.84 (the log's own figures).
  const EngineGiB rest = profile_rest(engine_gib(19.08 + 3.76), engine_gib(19.08), 0.85);
  const MambaBudget b = handle_max_mamba_cache(rest, 96'030'720, MambaBudgetInputs{});
  EXPECT_EQ(b.max_mamba_cache_size, 82);
  EXPECT_DOUBLE_EQ(b.rest.value(), rest.value() - 82.0 * 96'030'720 / (1 << 30));
  // The pool holds 83 slots (slot 0 pads): 137,687,040 and 7,832,862,720 bytes.
  EXPECT_EQ(log_mamba_allocated(82, bytes(45LL * 83 * 36'864), bytes(45LL * 83 * 2'097'152)),
            "Mamba Cache is allocated. max_mamba_cache_size: 82, conv_state size: 0.13GB, "
            "ssm_state size: 7.29GB ");
}

TEST(SglangMambaCache, GivenSizesAndRadixCacheDecideTheSlots) {
  const EngineGiB rest = engine_gib(10.0);
  MambaBudgetInputs in;
  in.max_mamba_cache_size = 64;
  in.attention_dp_size = 2;
  EXPECT_EQ(handle_max_mamba_cache(rest, 1 << 20, in).max_mamba_cache_size, 32);
  MambaBudgetInputs no_radix;
  no_radix.disable_radix_cache = true;
  no_radix.max_running_requests = 48;
  const MambaBudget b = handle_max_mamba_cache(rest, 1 << 20, no_radix);
  EXPECT_EQ(b.max_mamba_cache_size, 48);
  EXPECT_DOUBLE_EQ(b.rest.value(), 10.0 - 48.0 / 1024);
  // Radix cache on without --max-running-requests: the ratio split, 10 x 0.9 / 1.9 GiB.
  no_radix.max_running_requests.reset();
  EXPECT_EQ(handle_max_mamba_cache(rest, 1 << 20, no_radix).max_mamba_cache_size, 4850);
  EXPECT_EQ(mamba_slots_per_request(false, false), 3);
  EXPECT_EQ(mamba_slots_per_request(false, true), 5);
  EXPECT_EQ(mamba_slots_per_request(true, true), 1);
}

}  // namespace
}  // namespace gpumem::sglang
