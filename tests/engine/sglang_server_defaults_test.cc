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

// auto_choose_speculative_params: (steps, top-k, draft tokens) = (3, 1, 4) for the MTP models
// (NEXTN runs as EAGLE), (5, 4, 8) for Llama; top-k 1 makes the draft tokens steps + 1.
TEST(SglangDefaults, SpeculativeDefaultsByArchitecture) {
  ServerFlags f = tp(8);
  f.speculative_algorithm = "NEXTN";
  for (const char* arch : {"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "Glm4MoeForCausalLM",
                           "GlmMoeDsaForCausalLM"}) {
    const SpeculativeSettings s = resolve_server_args(f, {0, 5, 9}, 143771, true, arch).speculative;
    EXPECT_EQ(s.algorithm, "EAGLE") << arch;
    EXPECT_EQ(s.num_steps, 3) << arch;
    EXPECT_EQ(s.eagle_topk, 1) << arch;
    EXPECT_EQ(s.num_draft_tokens, 4) << arch;
  }
  f.speculative_algorithm = "EAGLE3";
  const SpeculativeSettings llama =
      resolve_server_args(f, {0, 5, 9}, 143771, false, "LlamaForCausalLM").speculative;
  EXPECT_EQ(llama.num_steps, 5);
  EXPECT_EQ(llama.eagle_topk, 4);
  EXPECT_EQ(llama.num_draft_tokens, 8);
  f.speculative_num_steps = 2;
  f.speculative_eagle_topk = 1;
  EXPECT_EQ(resolve_server_args(f, {0, 5, 9}, 143771, false, "LlamaForCausalLM")
                .speculative.num_draft_tokens,
            3);
}

TEST(SglangDefaults, PiecewiseGraphsFromV0510) {
  // 58 piecewise sizes up to 8192 tokens: +464 MiB -> 15312 -> 0.844
  ResolvedArgs r = resolve_server_args(tp(8), {0, 5, 10}, 97871, false, "LlamaForCausalLM");
  EXPECT_TRUE(r.piecewise_cuda_graph);
  EXPECT_EQ(r.reserved_mib, 15312);
  EXPECT_EQ(r.mem_fraction_static, 0.844);
  // --piecewise-cuda-graph-max-tokens 2048: 4..32/4, 48..256/16, 288..512/32, 576..1024/64,
  // 1280..2048/256 = 8 + 14 + 8 + 8 + 4 = 42 sizes, 336 MiB: 15184 -> 0.845.
  ServerFlags f = tp(8);
  f.piecewise_cuda_graph_max_tokens = 2048;
  const ResolvedArgs capped = resolve_server_args(f, {0, 5, 10}, 97871, false, "LlamaForCausalLM");
  EXPECT_EQ(capped.reserved_mib, 15312 - 464 + 42 * 8);
  // --piecewise-cuda-graph-tokens gives the sizes themselves.
  f.piecewise_cuda_graph_tokens = std::vector<std::int64_t>{256, 512, 1024};
  EXPECT_EQ(resolve_server_args(f, {0, 5, 10}, 97871, false, "LlamaForCausalLM").reserved_mib,
            15312 - 464 + 3 * 8);
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

// v0.4.6.x (server_args.py __post_init__): the fraction by TP x PP, chunks and the graph
// maximum by the 25,000 MiB threshold, the fixed [1, 2, 4, 8] + 16..160 capture list.
TEST(SglangDefaults, ParallelSizeTableOfV046) {
  ResolvedArgs h100 = resolve_server_args(tp(1), {0, 4, 6}, 81559, false, "Qwen3ForCausalLM");
  EXPECT_EQ(h100.mem_fraction_static, 0.88);
  EXPECT_TRUE(h100.mem_fraction_static_is_auto);
  EXPECT_EQ(h100.chunked_prefill_size, 8192);
  EXPECT_FALSE(h100.capture_max_bs.has_value());
  EXPECT_EQ(h100.cuda_graph_max_bs, 160);
  EXPECT_EQ(h100.cuda_graph_bs.size(), 23u);
  ResolvedArgs l4 = resolve_server_args(tp(4), {0, 4, 6, 5}, 23034, false, "Qwen2ForCausalLM");
  EXPECT_EQ(l4.mem_fraction_static, 0.85);
  EXPECT_EQ(l4.chunked_prefill_size, 2048);
  EXPECT_EQ(l4.cuda_graph_max_bs, 80);
  ServerFlags f = tp(8);
  f.pp_size = 2;
  EXPECT_EQ(resolve_server_args(f, {0, 4, 6}, 81559, false, "LlamaForCausalLM").mem_fraction_static,
            0.79);
}

// Above 81,920 MiB (an H200's 143,771): v0.4.6 leaves 13 GiB whatever the TP and captures to
// 256 with one DP rank (35 sizes, as PR #5893's log shows: "35/35"), to 160 with more; from
// v0.4.6.post2 (PR #5893) the fraction is 0.88 raised by 48 GiB x 0.12 / total, capped where 18
// GiB stay (the cap wins on an H200), and an H20 (97,871 MiB, not above 96 GiB) keeps 0.88.
TEST(SglangDefaults, LargeGpusOfV046) {
  const ResolvedArgs v046 = resolve_server_args(tp(8), {0, 4, 6}, 143771, true, "X");
  EXPECT_EQ(v046.mem_fraction_static, (143771.0 - 13 * 1024) / 143771.0);
  EXPECT_TRUE(v046.mem_fraction_static_is_auto);
  EXPECT_FALSE(v046.capture_max_bs.has_value());
  EXPECT_EQ(v046.cuda_graph_max_bs, 256);
  EXPECT_EQ(fixed_list_to_capture(v046.cuda_graph_bs, std::nullopt, false, 4096).size(), 35u);
  EXPECT_EQ(resolve_server_args(tp(1), {0, 4, 6, 1}, 143771, true, "X").mem_fraction_static,
            v046.mem_fraction_static);
  ServerFlags dp2 = tp(8);
  dp2.dp_size = 2;
  EXPECT_EQ(resolve_server_args(dp2, {0, 4, 6}, 143771, true, "X").cuda_graph_max_bs, 160);
  const ResolvedArgs post4 = resolve_server_args(tp(8), {0, 4, 6, 4}, 143771, true, "X");
  EXPECT_EQ(post4.mem_fraction_static, (143771.0 - 18 * 1024) / 143771.0);
  EXPECT_EQ(post4.cuda_graph_max_bs, 256);
  EXPECT_EQ(resolve_server_args(dp2, {0, 4, 6, 4}, 143771, true, "X").cuda_graph_max_bs, 256);
  EXPECT_EQ(resolve_server_args(tp(8), {0, 4, 6, 2}, 97871, true, "X").mem_fraction_static, 0.88);
  EXPECT_EQ(resolve_server_args(tp(8), {0, 4, 6}, 97871, true, "X").mem_fraction_static,
            (97871.0 - 13 * 1024) / 97871.0);
}

// v0.4.7–v0.5.2 (PR #7054): reserve (9.5 + 8/2) GiB on H100 at TP 8 -> round(67735/81559, 3);
// (12 + 4) GiB on H200; (2.8 + 0.4) GiB on L4 at TP 4 with 80 graphs; speculative +2 GiB,
// DP attention +4 GiB; the fixed list grows to 256 above 96 GiB and 512 above 180,000 MiB.
TEST(SglangDefaults, ReserveByClassOfV047ToV052) {
  ResolvedArgs h100 = resolve_server_args(tp(8), {0, 4, 7}, 81559, false, "LlamaForCausalLM");
  EXPECT_EQ(h100.reserved_mib, 13824);
  EXPECT_EQ(h100.mem_fraction_static, 0.831);
  EXPECT_EQ(h100.chunked_prefill_size, 8192);
  EXPECT_FALSE(h100.capture_max_bs.has_value());
  EXPECT_EQ(h100.cuda_graph_max_bs, 160);
  ResolvedArgs h200 = resolve_server_args(tp(8), {0, 5, 2}, 143771, false, "LlamaForCausalLM");
  EXPECT_EQ(h200.mem_fraction_static, 0.886);
  EXPECT_EQ(h200.cuda_graph_max_bs, 256);
  EXPECT_EQ(fixed_list_to_capture(h200.cuda_graph_bs, h200.capture_max_bs, true, 4096).size(), 35u);
  ResolvedArgs b200 = resolve_server_args(tp(8), {0, 5, 2}, 183359, false, "LlamaForCausalLM");
  EXPECT_EQ(b200.reserved_mib, 32768);
  EXPECT_EQ(b200.chunked_prefill_size, 16384);
  EXPECT_EQ(b200.cuda_graph_max_bs, 512);
  ResolvedArgs l4 = resolve_server_args(tp(4), {0, 5, 0}, 23034, false, "Qwen2ForCausalLM");
  EXPECT_EQ(l4.mem_fraction_static, 0.858);
  EXPECT_EQ(l4.chunked_prefill_size, 2048);
  EXPECT_EQ(l4.capture_max_bs, 80);
  EXPECT_EQ(l4.cuda_graph_max_bs, 80);
  ServerFlags spec = tp(8);
  spec.speculative_algorithm = "EAGLE3";
  spec.enable_dp_attention = true;
  spec.dp_size = 8;
  EXPECT_EQ(resolve_server_args(spec, {0, 4, 7}, 81559, false, "LlamaForCausalLM").reserved_mib,
            13824 + 2048 + 4096);
}

// get_batch_sizes_to_capture of the fixed list: a pool of 100 rows joins the list and bounds
// it; --cuda-graph-max-bs 200 extends a list ending at 160 by 176 and 192 (PR #6201), not
// before it.
TEST(SglangDefaults, FixedListAtCaptureTime) {
  const std::vector<std::int64_t> list = fixed_cuda_graph_bs(81559, false, false, true);
  std::vector<std::int64_t> pool100 = fixed_list_to_capture(list, 160, true, 100);
  EXPECT_EQ(pool100.back(), 100);
  EXPECT_EQ(pool100[pool100.size() - 2], 96);
  EXPECT_EQ(fixed_list_to_capture(list, 200, true, 4096).back(), 192);
  EXPECT_EQ(fixed_list_to_capture(list, 200, false, 4096).back(), 160);
  ServerFlags f = tp(1);
  f.cuda_graph_max_bs = 200;
  EXPECT_EQ(resolve_server_args(f, {0, 4, 7}, 81559, false, "LlamaForCausalLM").cuda_graph_max_bs,
            192);
  // Before PR #6201 the list reaches 256 above 81,920 MiB (H20 96 GB: 97,871 MiB) with one DP
  // rank, after it above 96 GiB (98,304 MiB) only; 512 above 180,000 MiB only after it.
  EXPECT_EQ(fixed_cuda_graph_bs(97871, false, false, false).back(), 256);
  EXPECT_EQ(fixed_cuda_graph_bs(97871, false, false, false, 2).back(), 160);
  EXPECT_EQ(fixed_cuda_graph_bs(97871, false, false, true).back(), 160);
  EXPECT_EQ(fixed_cuda_graph_bs(183359, false, false, false).back(), 256);
  EXPECT_EQ(fixed_cuda_graph_bs(183359, false, false, true).back(), 512);
}

// v0.5.18 appends --cuda-graph-max-bs when the ladder skips it.
TEST(SglangDefaults, LadderAppendsMaxBsFromV0518) {
  ServerFlags f = tp(1);
  f.cuda_graph_max_bs = 100;
  EXPECT_EQ(
      resolve_server_args(f, {0, 5, 17}, 81559, false, "LlamaForCausalLM").cuda_graph_bs.back(),
      96);
  EXPECT_EQ(
      resolve_server_args(f, {0, 5, 18}, 81559, false, "LlamaForCausalLM").cuda_graph_bs.back(),
      100);
}

// v0.5.19 (PR #37898) on an RTX 4090 (24,564 MiB), TP 1: 4096-token chunks and 48 graphs;
// 512 + 4096 x 1.5 + 48 x 2 + 128 + 50 piecewise sizes x 8 = 7280 MiB -> 0.704. v0.5.18:
// 512 + 3072 + 48 + 128 + 42 x 8 = 4096 -> 0.833.
TEST(SglangDefaults, SmallGpuClassRaisedInV0519) {
  ResolvedArgs r19 = resolve_server_args(tp(1), {0, 5, 19}, 24564, false, "LlamaForCausalLM");
  EXPECT_EQ(r19.chunked_prefill_size, 4096);
  EXPECT_EQ(r19.cuda_graph_max_bs, 48);
  EXPECT_EQ(r19.reserved_mib, 7280);
  EXPECT_EQ(r19.mem_fraction_static, 0.704);
  EXPECT_EQ(
      resolve_server_args(tp(4), {0, 5, 20}, 24564, false, "LlamaForCausalLM").cuda_graph_max_bs,
      160);
  ResolvedArgs r18 = resolve_server_args(tp(1), {0, 5, 18}, 24564, false, "LlamaForCausalLM");
  EXPECT_EQ(r18.reserved_mib, 4096);
  EXPECT_EQ(r18.mem_fraction_static, 0.833);
}

TEST(SglangVersion, ParsesPostReleasesAndBoundsTheModelledRange) {
  EXPECT_EQ(parse_version("v0.4.6.post3"), (Version{0, 4, 6, 3}));
  EXPECT_EQ(parse_version("0.5.20.post1")->to_string(), "0.5.20.post1");
  EXPECT_FALSE(parse_version("0.4.6.post").has_value());
  EXPECT_FALSE(is_modelled({0, 4, 5, 2}));
  EXPECT_TRUE(is_modelled({0, 4, 6}));
  EXPECT_TRUE(is_modelled({0, 5, 20, 1}));
  EXPECT_TRUE(is_modelled({0, 5, 21}));
  EXPECT_FALSE(is_modelled({0, 5, 22}));
  EXPECT_TRUE(rules_for({0, 4, 6, 5}).req_pool_extra_row);
  EXPECT_FALSE(rules_for({0, 4, 7}).req_pool_extra_row);
  EXPECT_FALSE(rules_for({0, 4, 6, 2}).capture_list_pr6201);
  EXPECT_TRUE(rules_for({0, 4, 6, 3}).capture_list_pr6201);
}

TEST(SglangDefaults, PythonRound3) {
  EXPECT_EQ(python_round3(0.84829), 0.848);
  EXPECT_EQ(python_round3(0.8475), 0.848);  // 0.8475 is stored above the tie
  EXPECT_EQ(python_round3(0.0005), 0.001);  // 0.0005 is stored above the tie
}

}  // namespace
}  // namespace gpumem::sglang
