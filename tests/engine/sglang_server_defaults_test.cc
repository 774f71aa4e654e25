// SGLang's defaults for absent flags. Expected values: CPython running SGLang v0.5.9's
// _handle_gpu_memory_settings arithmetic on the same inputs.
#include <gtest/gtest.h>

#include "engine/sglang/server_defaults.h"

namespace gpumem::sglang {
namespace {

ServerFlags tp(int n) {
  ServerFlags f;
  f.tp_size = n;
  return f;
}

TEST(SglangDefaults, WorkedExampleH20Tp8) {
  // reserved = 512 + 8192*1.5 + 512*2 + 8/8*1024 = 14848 MiB; round((97871-14848)/97871, 3)
  ResolvedArgs r = resolve_server_args(tp(8), {0, 5, 9}, 97871, false, "LlamaForCausalLM");
  EXPECT_EQ(r.chunked_prefill_size, 8192);
  EXPECT_EQ(r.cuda_graph_max_bs, 512);
  EXPECT_EQ(r.reserved_mib, 14848);
  EXPECT_EQ(r.mem_fraction_static, 0.848);
  EXPECT_TRUE(r.mem_fraction_static_is_auto);
  EXPECT_EQ(r.cuda_graph_bs.size(), 52u);
}

TEST(SglangDefaults, EagleReserveByVersion) {
  ServerFlags f = tp(8);
  f.speculative_algorithm = "EAGLE3";
  EXPECT_EQ(resolve_server_args(f, {0, 5, 9}, 97871, false, "LlamaForCausalLM").mem_fraction_static,
            0.827);  // +2048 MiB
  ResolvedArgs r = resolve_server_args(f, {0, 5, 9}, 97871, false, "LlamaForCausalLM");
  EXPECT_EQ(r.max_running_requests, 48);
  EXPECT_EQ(r.speculative.num_steps, 5);
  EXPECT_EQ(r.speculative.eagle_topk, 4);
  EXPECT_EQ(r.speculative.num_draft_tokens, 8);
}

TEST(SglangDefaults, PiecewiseGraphsFromV0510) {
  // 58 piecewise sizes up to 8192 tokens: +464 MiB -> 15312 -> 0.844
  ResolvedArgs r = resolve_server_args(tp(8), {0, 5, 10}, 97871, false, "LlamaForCausalLM");
  EXPECT_TRUE(r.piecewise_cuda_graph);
  EXPECT_EQ(r.reserved_mib, 15312);
  EXPECT_EQ(r.mem_fraction_static, 0.844);
}

TEST(SglangDefaults, SeedBoxAuto) {
  // RTX PRO 6000 (97887 MiB), TP 8, --cuda-graph-max-bs 128, EAGLE3, Kimi-K2 (MLA):
  // max(512 + 12288 + 256 + 1024, 10240) + 2048 = 16128 -> round(81759/97887, 3) = 0.835
  ServerFlags f = tp(8);
  f.cuda_graph_max_bs = 128;
  f.speculative_algorithm = "EAGLE3";
  f.speculative_num_steps = 3;
  f.speculative_eagle_topk = 1;
  f.speculative_num_draft_tokens = 4;
  ResolvedArgs r = resolve_server_args(f, {0, 5, 9}, 97887, true, "DeepseekV3ForCausalLM");
  EXPECT_EQ(r.reserved_mib, 16128);
  EXPECT_EQ(r.mem_fraction_static, 0.835);
  // Speculative list up to 128: 1..8, 10..32 step 2, 40..64 step 4, 72..128 step 8.
  EXPECT_EQ(r.cuda_graph_bs.size(), 35u);
  EXPECT_EQ(r.cuda_graph_bs.back(), 128);
}

TEST(SglangDefaults, SizeClassesAndSmallTp) {
  ResolvedArgs h200 = resolve_server_args(tp(1), {0, 5, 9}, 143771, false, "LlamaForCausalLM");
  EXPECT_EQ(h200.cuda_graph_max_bs, 256);
  EXPECT_EQ(h200.mem_fraction_static, 0.907);  // max(13440, 10240) -> round(130331/143771, 3)
  ResolvedArgs rtx4090 = resolve_server_args(tp(2), {0, 5, 9}, 24564, false, "LlamaForCausalLM");
  EXPECT_EQ(rtx4090.chunked_prefill_size, 2048);
  EXPECT_EQ(rtx4090.cuda_graph_max_bs, 24);
  ResolvedArgs b200 = resolve_server_args(tp(8), {0, 5, 9}, 183359, false, "LlamaForCausalLM");
  EXPECT_EQ(b200.chunked_prefill_size, 16384);
}

TEST(SglangDefaults, TopkOneForcesChainLength) {
  ServerFlags f = tp(2);
  f.speculative_algorithm = "EAGLE";
  f.speculative_num_steps = 3;
  f.speculative_eagle_topk = 1;
  f.speculative_num_draft_tokens = 16;
  EXPECT_EQ(resolve_server_args(f, {0, 5, 9}, 81559, false, "LlamaForCausalLM")
                .speculative.num_draft_tokens,
            4);
}

TEST(SglangDefaults, PythonRound3) {
  EXPECT_EQ(python_round3(0.84829), 0.848);
  EXPECT_EQ(python_round3(0.8475), 0.848);  // 0.8475 is stored above the tie
  EXPECT_EQ(python_round3(0.0005), 0.001);  // 0.0005 is stored above the tie
}

}  // namespace
}  // namespace gpumem::sglang
