// SGLang's KV sizing to the token. Expected values were computed with CPython 3.11 running
// SGLang v0.5.9's expressions on the same inputs (see each comment).
#include <gtest/gtest.h>

#include "engine/sglang/kv_sizing.h"

namespace gpumem::sglang {
namespace {

KvGeometry llama70b_tp8() {
  KvGeometry g;
  g.layers = 80;
  g.kv_heads = 1;  // max(1, 8 // 8)
  g.head_dim = 128;
  g.v_head_dim = 128;
  return g;
}

TEST(SglangCellSize, GqaWithOneHeadPerRank) { EXPECT_EQ(cell_size(llama70b_tp8()), 40960); }

TEST(SglangCellSize, MlaIsNotDividedByTp) {
  KvGeometry g;
  g.mla = true;
  g.layers = 61;
  g.kv_lora_rank = 512;
  g.qk_rope_head_dim = 64;
  EXPECT_EQ(cell_size(g), 70272);  // (512 + 64) * 61 * 2
  g.kv_element_size = 1;
  EXPECT_EQ(cell_size(g), 35136);  // fp8
}

// DeepSeek-V3.2 (61 layers, index_head_dim 128): SGLang budgets the latent at 576 x the
// element size and each layer's indexer key at 132 bytes, but stores an FP8 latent in the
// 656-byte layout (model_runner_kv_cache_mixin.py get_cell_size_per_token against
// calculate_mla_kv_cache_dim).
KvGeometry deepseek_v32(std::int64_t element_size, bool fp8_layout) {
  KvGeometry g;
  g.mla = true;
  g.layers = 61;
  g.kv_lora_rank = 512;
  g.qk_rope_head_dim = 64;
  g.kv_element_size = element_size;
  g.index_key_bytes = 132;
  g.fp8_latent_layout = fp8_layout;
  return g;
}

TEST(SglangCellSize, SparseAttentionCountsTheIndexerButNotTheFp8Layout) {
  EXPECT_EQ(cell_size(deepseek_v32(2, false)), 78324);  // (1152 + 132) * 61
  EXPECT_EQ(mla_row_bytes(deepseek_v32(2, false)), 1152);
  EXPECT_EQ(cell_size(deepseek_v32(1, true)), 43188);     // (576 + 132) * 61
  EXPECT_EQ(mla_row_bytes(deepseek_v32(1, true)), 656);   // 512 + 4 x 4 + 64 x 2
  EXPECT_EQ(mla_row_bytes(deepseek_v32(1, false)), 576);  // trtllm: plain FP8
}

// sglang PR #11309 (https://github.com/sgl-project/sglang/pull/11309), DeepSeek-V3.2-Exp on
// B200 with an FP8 KV cache: "KV Cache is allocated. #tokens: 975424, KV size: 43.67 GB". Per
// layer, 975,488 latent rows of 656 bytes and 15,242 indexer pages of 64 x 132 bytes.
TEST(SglangPools, SparseAttentionPoolMatchesALoggedKvSize) {
  const KvGeometry g = deepseek_v32(1, true);
  EXPECT_EQ(index_buffer_bytes(g, 975424, 64), 128764416);
  const std::int64_t total =
      61 * ((975424 + 64) * mla_row_bytes(g) + index_buffer_bytes(g, 975424, 64));
  EXPECT_EQ(total, 46889757184);
  EXPECT_NEAR(static_cast<double>(total) / (1 << 30), 43.67, 0.005);
}

TEST(SglangCellSize, Fp4AddsBlockScales) {
  KvGeometry g = llama70b_tp8();
  g.kv_element_size = 1;
  g.fp4 = true;
  EXPECT_EQ(cell_size(g), 11520);  // 20480 // 2 + (1*128*80*2*1) // 16
  KvGeometry m;
  m.mla = true;
  m.layers = 61;
  m.kv_lora_rank = 512;
  m.qk_rope_head_dim = 64;
  m.kv_element_size = 1;
  m.fp4 = true;
  EXPECT_EQ(cell_size(m), 19764);  // 35136 // 2 + (576 // 16) * 61
}

TEST(SglangCellSize, HybridSlidingWindow) {
  KvGeometry g;
  g.hybrid_swa = true;
  g.kv_heads = g.swa_kv_heads = 8;
  g.head_dim = g.v_head_dim = g.swa_head_dim = g.swa_v_head_dim = 64;
  g.full_layers = 12;
  g.swa_layers = 12;
  EXPECT_EQ(cell_size(g), 49152);  // (8*128*12 + 8*128*12) * 2
}

// research/sglang-memory.md §9 with A pinned: F = 93.00 GiB; weight load took
// 17,640,734,720 B of weights + 3 MiB of allocator rounding + 64 MiB RoPE cache, so
// A = 82,147,000,320 B; rest = 34.65535583496094 GiB; T = 908469.
TEST(SglangProfile, WorkedExampleLlama70bTp8) {
  const EngineGiB f = to_engine_gib(gib(93));
  const EngineGiB a = to_engine_gib(bytes(82'147'000'320));
  EXPECT_EQ(profile_rest(f, a, 0.55).value(), 34.65535583496094);
  const std::int64_t t = profile_max_num_token(f, a, 0.55, 40960);
  EXPECT_EQ(t, 908469);

  PoolInputs in;
  in.profiled_tokens = t;
  in.context_len = 131072;
  PoolSizing s = size_pools(in);
  EXPECT_EQ(s.max_num_reqs, 3548);  // min(max(int(908469 / 131072 * 512), 2048), 4096)
  EXPECT_EQ(s.max_total_num_tokens, 908469);
  EXPECT_EQ(max_running_requests(s.max_total_num_tokens, std::nullopt, 1, s.max_num_reqs), 3548);
}

TEST(SglangProfile, NegativeRestFloorsLikePython) {
  // int((20.0 - 80.0 * 0.5) * 2**30) // 40960 == -524288
  EXPECT_EQ(profile_max_num_token(engine_gib(80), engine_gib(20), 0.5, 40960), -524288);
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_div(7, 2), 3);
}

// rest = A - F x (1 - mfs) > 0: A = 12.25 of F = 137.90 GiB needs 1 - mfs < 0.08883, so
// 0.92 (0.91 keeps back 12.411 GiB); A below 1% of F leaves no fraction below 1.
TEST(SglangProfile, SmallestFractionThatLeavesRest) {
  EXPECT_EQ(smallest_mem_fraction_static(engine_gib(137.90), engine_gib(12.25)), 0.92);
  EXPECT_EQ(smallest_mem_fraction_static(engine_gib(10), engine_gib(0.05)), std::nullopt);
}

TEST(SglangPools, ClampsInOrder) {
  PoolInputs in;
  in.profiled_tokens = 1'000'003;
  in.context_len = 8192;
  in.max_total_tokens = 900'001;
  in.page_size = 64;
  PoolSizing s = size_pools(in);
  EXPECT_EQ(s.max_num_reqs, 4096);             // the estimate uses the unclamped T
  EXPECT_EQ(s.max_total_num_tokens, 899'968);  // min, then // 64 * 64
  in.max_running_requests = 48;
  EXPECT_EQ(size_pools(in).max_num_reqs, 48);
  EXPECT_EQ(max_running_requests(899'968, 48, 1, 48), 48);
  EXPECT_EQ(max_running_requests(100, std::nullopt, 1, 4096), 50);
}

TEST(SglangPools, HybridSwaSplit) {
  KvGeometry g;
  g.hybrid_swa = true;
  g.kv_heads = g.swa_kv_heads = 8;
  g.head_dim = g.v_head_dim = g.swa_head_dim = g.swa_v_head_dim = 64;
  g.full_layers = 12;
  g.swa_layers = 12;
  PoolInputs in;
  in.profiled_tokens = 1'000'000;
  in.context_len = 131072;
  PoolSizing s = size_pools(in);
  split_hybrid_swa(g, 1, 0.8, s);
  // total = 1e6 * 49152; full = int(total / (24576 + 0.8 * 24576)); swa = int(full * 0.8)
  EXPECT_EQ(s.full_tokens, 1'111'111);
  EXPECT_EQ(s.swa_tokens, 888'888);
  EXPECT_EQ(s.max_total_num_tokens, 1'111'111);
}

TEST(SglangPools, NotEnoughMemoryMessageIsSglangs) {
  EXPECT_EQ(not_enough_memory_message(0.55),
            "Not enough memory. Please try to increase --mem-fraction-static. Current value: "
            "self.server_args.mem_fraction_static=0.55");
}

}  // namespace
}  // namespace gpumem::sglang
