#include "weights/rank_weights.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/weight_test_models.h"
#include "weights/parallel_layout.h"

// Every expected byte count below is derived by hand from SGLang's module shapes (the
// derivation sits next to the number); none is copied from gpumem's output. bf16 = 2 B,
// fp8 = 1 B, fp32 / int32 = 4 B, int64 = 8 B. Vocabularies are padded to a multiple of 64
// before the TP split.

namespace gpumem {
namespace {

using weight_tests::bytes_of;
using weight_tests::find;
using weight_tests::model;

std::vector<WeightTensor> weights(const Architecture& a, ParallelLayout l,
                                  const WeightRules& rules = {}) {
  Result<WeightList> w = rank_weights(a, l, rules);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? **w : std::vector<WeightTensor>{};
}

std::vector<std::int64_t> shape_of(const std::vector<WeightTensor>& ts, const std::string& name) {
  const WeightTensor* t = find(ts, name);
  EXPECT_NE(t, nullptr) << name;
  return t ? t->shape : std::vector<std::int64_t>{};
}

bool is_rope(const WeightTensor& t) { return t.name.ends_with("cos_sin_cache"); }

std::int64_t parameter_bytes(const std::vector<WeightTensor>& ts) {
  std::int64_t total = 0;
  for (const WeightTensor& t : ts) {
    if (!is_rope(t) && t.released_after == kResident) total += t.bytes.value();
  }
  return total;
}

std::vector<std::string> names_from(const std::vector<WeightTensor>& ts, size_t first,
                                    size_t count) {
  std::vector<std::string> out;
  for (size_t i = first; i < first + count && i < ts.size(); ++i) out.push_back(ts[i].name);
  return out;
}

TEST(RankWeights, Llama31_70B_Tp8MatchesTheWorkedExample) {
  const std::vector<WeightTensor> w = weights(model("llama-3.1-70b-instruct"), {.tp_size = 8});
  // sglang-memory.md §9, per layer on one of 8 ranks (64 heads -> 8, 8 KV heads -> 1):
  //   qkv_proj (8 + 2x1) x 128 = 1280 rows x 8192 x 2 B         =  20,971,520
  //   o_proj 8192 x (8 x 128) x 2 B                               =  16,777,216
  //   gate_up_proj 2 x 28672/8 = 7168 rows x 8192 x 2 B          = 117,440,512
  //   down_proj 8192 x 3584 x 2 B                                 =  58,720,256
  //   two RMSNorm weights 2 x 8192 x 2 B                          =      32,768
  //   = 213,942,272 B per layer, x 80 = 17,115,381,760
  // embed_tokens and lm_head: 128256 (already a multiple of 64) / 8 = 16032 rows x 8192 x 2 B
  //   = 262,668,288 each; final norm 8192 x 2 B = 16,384.
  // 17,115,381,760 + 2 x 262,668,288 + 16,384 = 17,640,734,720.
  EXPECT_EQ(parameter_bytes(w), 17'640'734'720);
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.weight"), 20'971'520);
  EXPECT_EQ(bytes_of(w, "model.layers.79.self_attn.o_proj.weight"), 16'777'216);
  EXPECT_EQ(bytes_of(w, "model.layers.5.mlp.gate_up_proj.weight"), 117'440'512);
  EXPECT_EQ(bytes_of(w, "model.layers.5.mlp.down_proj.weight"), 58'720'256);
  EXPECT_EQ(shape_of(w, "model.embed_tokens.weight"), (std::vector<std::int64_t>{16032, 8192}));
  EXPECT_EQ(bytes_of(w, "lm_head.weight"), 262'668'288);
  // One llama3 RoPE cache shared by all layers: float32 [131072 positions, 128] = 67,108,864.
  EXPECT_EQ(shape_of(w, "model.layers.0.self_attn.rotary_emb.cos_sin_cache"),
            (std::vector<std::int64_t>{131072, 128}));
  EXPECT_EQ(resident_bytes(w).value(), 17'640'734'720 + 67'108'864);
  // 1 embedding + 80 x 7 (6 parameters, plus the cache in layer 0 only) + norm + lm_head.
  EXPECT_EQ(w.size(), 1u + 80 * 6 + 1 + 2);
  EXPECT_EQ(names_from(w, 0, 8),
            (std::vector<std::string>{
                "model.embed_tokens.weight", "model.layers.0.self_attn.qkv_proj.weight",
                "model.layers.0.self_attn.o_proj.weight",
                "model.layers.0.self_attn.rotary_emb.cos_sin_cache",
                "model.layers.0.mlp.gate_up_proj.weight", "model.layers.0.mlp.down_proj.weight",
                "model.layers.0.input_layernorm.weight",
                "model.layers.0.post_attention_layernorm.weight"}));
  EXPECT_EQ(w.back().name, "lm_head.weight");
}

TEST(RankWeights, Llama31_8B_Tp1AndTp2) {
  const Architecture a = model("llama-3.1-8b-instruct");
  // TP1 holds every parameter once: 8,030,261,248 x 2 B = 16,060,522,496.
  EXPECT_EQ(parameter_bytes(weights(a, {.tp_size = 1})), 16'060'522'496);
  // TP2 per layer: qkv (16 + 2x4) x 128 = 3072 rows x 4096 x 2 = 25,165,824; o 4096 x 2048 x 2
  // = 16,777,216; gate_up 2 x 7168 x 4096 x 2 = 117,440,512; down 4096 x 7168 x 2 =
  // 58,720,256; norms 16,384 -> 218,120,192 x 32 = 6,979,846,144. Embedding and lm_head
  // 64128 rows x 4096 x 2 = 525,336,576 each; final norm 8,192 (replicated).
  // 6,979,846,144 + 2 x 525,336,576 + 8,192 = 8,030,527,488.
  const std::vector<WeightTensor> tp2 = weights(a, {.tp_size = 2, .tp_rank = 1});
  EXPECT_EQ(parameter_bytes(tp2), 8'030'527'488);
  EXPECT_EQ(bytes_of(tp2, "model.layers.31.self_attn.qkv_proj.weight"), 25'165'824);
}

TEST(RankWeights, KvHeadsAreReplicatedWhenTpExceedsThem) {
  // Qwen2.5-72B: 64 query heads, 8 KV heads, head_dim 128, hidden 8192, q/k/v biases.
  // TP16: 4 query heads and max(1, 8/16) = 1 replicated KV head per rank, so
  // qkv_proj has (4 + 2 x 1) x 128 = 768 rows: 768 x 8192 x 2 B = 12,582,912; bias 768 x 2 B.
  const std::vector<WeightTensor> w = weights(model("qwen2.5-72b-instruct"), {.tp_size = 16});
  EXPECT_EQ(shape_of(w, "model.layers.0.self_attn.qkv_proj.weight"),
            (std::vector<std::int64_t>{768, 8192}));
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.weight"), 12'582'912);
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.bias"), 1'536);
  EXPECT_EQ(find(w, "model.layers.0.self_attn.o_proj.bias"), nullptr);  // Qwen2: no o bias
  // Per layer: qkv 12,582,912 + 1,536; o 8192 x 512 x 2 = 8,388,608; gate_up 2 x 1848 x 8192
  // x 2 = 60,555,264; down 30,277,632; norms 32,768 -> 111,838,720 x 80 = 8,947,097,600.
  // 152064 vocab / 16 = 9504 rows x 8192 x 2 = 155,713,536 twice; final norm 16,384.
  EXPECT_EQ(parameter_bytes(w), 8'947'097'600 + 2 * 155'713'536 + 16'384);
}

TEST(RankWeights, EqualArgumentsGetTheSameListBackFromTheCache) {
  // Plans share lists, and the simulator's weight-load memo recognises a list by identity.
  const Architecture llama = model("llama-3.1-8b-instruct");
  WeightListCache cache;
  Result<WeightList> a = rank_weights(llama, {.tp_size = 2}, {}, &cache);
  Result<WeightList> b = rank_weights(llama, {.tp_size = 2}, {}, &cache);
  Result<WeightList> other = rank_weights(llama, {.tp_size = 4}, {}, &cache);
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_NE(a->get(), other->get());
  EXPECT_EQ((*a)->size(), (*other)->size());
  // Without a cache every call builds its own list: nothing is shared behind the caller.
  Result<WeightList> c = rank_weights(llama, {.tp_size = 2}, {});
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->get(), c->get());
  EXPECT_EQ((*a)->size(), (*c)->size());
}

TEST(RankWeights, TensorParallelMustDivideHeads) {
  // Qwen2.5-7B has 28 query heads: TP8 cannot split them.
  Result<WeightList> w = rank_weights(model("qwen2.5-7b-instruct"), {.tp_size = 8}, {});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(),
            "num_attention_heads 28 is not divisible by the attention tensor-parallel size 8");
}

TEST(RankWeights, PipelineStagesSplitLayersEmbeddingAndHead) {
  // sglang get_pp_indices: 28 layers over 3 stages -> 9, 9, 10 (the last stage takes the
  // remainder); 61 over 4 -> 15, 15, 15, 16; 80 over 2 -> 40, 40.
  EXPECT_EQ(pp_layer_range(28, 0, 3).end, 9);
  EXPECT_EQ(pp_layer_range(28, 1, 3).start, 9);
  EXPECT_EQ(pp_layer_range(28, 2, 3).start, 18);
  EXPECT_EQ(pp_layer_range(28, 2, 3).end, 28);
  EXPECT_EQ(pp_layer_range(61, 3, 4).start, 45);
  EXPECT_EQ(pp_layer_range(80, 1, 2).start, 40);
  // vllm get_pp_indices: the remainder goes to the stages before the last, next to it first:
  // 28 over 3 -> 9, 10, 9; 80 over 3 -> 27, 27, 26; 61 over 2 -> 31, 30.
  constexpr PpPartition kVllm = PpPartition::kExtraBeforeLastStage;
  EXPECT_EQ(pp_layer_range(28, 1, 3, kVllm).start, 9);
  EXPECT_EQ(pp_layer_range(28, 1, 3, kVllm).end, 19);
  EXPECT_EQ(pp_layer_range(28, 2, 3, kVllm).end, 28);
  EXPECT_EQ(pp_layer_range(80, 1, 3, kVllm).end, 54);
  EXPECT_EQ(pp_layer_range(80, 2, 3, kVllm).start, 54);
  EXPECT_EQ(pp_layer_range(61, 0, 2, kVllm).end, 31);

  // Llama-3.1-8B, PP2 x TP1: stage 0 = embedding + layers 0-15, stage 1 = layers 16-31 +
  // final norm + lm_head; each stage builds its own RoPE cache. Per layer 436,224,000 B
  // (qkv 50,331,648 + o 33,554,432 + gate_up 234,881,024 + down 117,440,512 + norms 16,384).
  // Stage 0: 16 x 436,224,000 + embedding 128256 x 4096 x 2 = 1,050,673,152
  //          = 8,030,257,152.   Stage 1: 16 x 436,224,000 + 8,192 + 1,050,673,152
  //          = 8,030,265,344.   Together: 16,060,522,496, the whole model once.
  const Architecture a = model("llama-3.1-8b-instruct");
  const std::vector<WeightTensor> s0 = weights(a, {.pp_size = 2, .pp_rank = 0});
  const std::vector<WeightTensor> s1 = weights(a, {.pp_size = 2, .pp_rank = 1});
  EXPECT_EQ(parameter_bytes(s0), 8'030'257'152);
  EXPECT_EQ(parameter_bytes(s1), 8'030'265'344);
  EXPECT_NE(find(s0, "model.embed_tokens.weight"), nullptr);
  EXPECT_EQ(find(s0, "lm_head.weight"), nullptr);
  EXPECT_EQ(find(s0, "model.layers.16.input_layernorm.weight"), nullptr);
  EXPECT_EQ(find(s1, "model.embed_tokens.weight"), nullptr);
  EXPECT_EQ(s1[0].name, "model.layers.16.self_attn.qkv_proj.weight");
  EXPECT_NE(find(s1, "model.layers.16.self_attn.rotary_emb.cos_sin_cache"), nullptr);
  EXPECT_EQ(s1.back().name, "lm_head.weight");
}

TEST(RankWeights, Qwen3MoeUnderTensorAndExpertParallelism) {
  const Architecture a = model("qwen3-30b-a3b");
  // TP2: each of the 128 experts split in two: 768 / 2 = 384 rows of gate and of up.
  //   w13 [128, 2 x 384, 2048] x 2 B = 402,653,184; w2 [128, 2048, 384] x 2 B = 201,326,592.
  // Per layer: qkv (16 + 2x2) x 128 = 2560 x 2048 x 2 = 10,485,760; o 2048 x 2048 x 2 =
  //   8,388,608; q_norm + k_norm 2 x 128 x 2 = 512; experts 603,979,776; gate (replicated)
  //   128 x 2048 x 2 = 524,288; norms 8,192 -> 623,387,136 x 48 = 29,922,582,528.
  // Embedding and lm_head 151936 / 2 = 75968 rows x 2048 x 2 = 311,164,928 each; norm 4,096.
  const std::vector<WeightTensor> tp = weights(a, {.tp_size = 2});
  EXPECT_EQ(shape_of(tp, "model.layers.0.mlp.experts.w13_weight"),
            (std::vector<std::int64_t>{128, 768, 2048}));
  EXPECT_EQ(bytes_of(tp, "model.layers.0.mlp.experts.w13_weight"), 402'653'184);
  EXPECT_EQ(bytes_of(tp, "model.layers.47.mlp.experts.w2_weight"), 201'326'592);
  EXPECT_EQ(parameter_bytes(tp), 29'922'582'528 + 2 * 311'164'928 + 4'096);
  // Experts first, then the router (qwen3_moe.py Qwen3MoeSparseMoeBlock).
  EXPECT_EQ(names_from(tp, 6, 3), (std::vector<std::string>{"model.layers.0.mlp.experts.w13_weight",
                                                            "model.layers.0.mlp.experts.w2_weight",
                                                            "model.layers.0.mlp.gate.weight"}));

  // TP2 + EP2: 64 whole experts per rank (moe_tp = 2 / 2 = 1): w13 [64, 1536, 2048] — the
  // same 402,653,184 bytes, laid out differently.
  const std::vector<WeightTensor> ep = weights(a, {.tp_size = 2, .ep_size = 2});
  EXPECT_EQ(shape_of(ep, "model.layers.0.mlp.experts.w13_weight"),
            (std::vector<std::int64_t>{64, 1536, 2048}));
  EXPECT_EQ(shape_of(ep, "model.layers.0.mlp.experts.w2_weight"),
            (std::vector<std::int64_t>{64, 2048, 768}));
  EXPECT_EQ(parameter_bytes(ep), parameter_bytes(tp));
}

TEST(RankWeights, DeepSeekV3Fp8Tp8) {
  const std::vector<WeightTensor> w = weights(model("deepseek-v3"), {.tp_size = 8});
  // MLA on 128 / 8 = 16 heads, FP8 weights with a float32 scale per 128x128 block:
  //   fused_qkv_a_proj_with_mqa [1536 + 512 + 64 = 2112, 7168] = 15,138,816 B
  //     + scales [ceil(2112/128) = 17, 7168/128 = 56] x 4 = 3,808
  //   q_b_proj [16 x 192 = 3072, 1536] = 4,718,592 + [24, 12] x 4 = 1,152
  //   kv_b_proj [16 x 256 = 4096, 512] = 2,097,152 + [32, 4] x 4 = 512
  //   o_proj [7168, 16 x 128 = 2048] = 14,680,064 + [56, 16] x 4 = 3,584
  //   q_a_layernorm 1536 x 2 = 3,072; kv_a_layernorm 512 x 2 = 1,024   -> 36,647,776
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.fused_qkv_a_proj_with_mqa.weight"), 15'138'816);
  EXPECT_EQ(shape_of(w, "model.layers.0.self_attn.fused_qkv_a_proj_with_mqa.weight_scale_inv"),
            (std::vector<std::int64_t>{17, 56}));
  EXPECT_EQ(shape_of(w, "model.layers.7.self_attn.q_b_proj.weight"),
            (std::vector<std::int64_t>{3072, 1536}));
  // deepseek_yarn RoPE: original 4096 x factor 40 = 163,840 positions x 64 x 4 B.
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.rotary_emb.cos_sin_cache"), 41'943'040);
  // Dense layers 0-2: gate_up [2 x 18432/8 = 4608, 7168] = 33,030,144 + [36, 56] x 4 = 8,064;
  //   down [7168, 2304] = 16,515,072 + [56, 18] x 4 = 4,032                -> 49,557,312
  EXPECT_EQ(bytes_of(w, "model.layers.2.mlp.gate_up_proj.weight"), 33'030'144);
  EXPECT_EQ(find(w, "model.layers.3.mlp.gate_up_proj.weight"), nullptr);
  // MoE layers 3-60: gate 256 x 7168 x 2 = 3,670,016 + float32 correction bias 1,024; the
  // shared expert fused as expert 257 (no EP): per rank 2048 / 8 = 256 rows,
  //   w13 [257, 512, 7168] = 943,194,112 + scales [257, 4, 56] x 4 = 230,272
  //   w2 [257, 7168, 256] = 471,597,056 + scales [257, 56, 2] x 4 = 115,136 -> 1,418,807,616
  EXPECT_EQ(shape_of(w, "model.layers.3.mlp.experts.w13_weight"),
            (std::vector<std::int64_t>{257, 512, 7168}));
  EXPECT_EQ(bytes_of(w, "model.layers.60.mlp.experts.w2_weight_scale_inv"), 115'136);
  EXPECT_EQ(find(w, "model.layers.3.mlp.shared_experts.gate_up_proj.weight"), nullptr);
  EXPECT_EQ(bytes_of(w, "model.layers.3.mlp.gate.e_score_correction_bias"), 1'024);
  // Embedding and lm_head 129280 / 8 = 16160 rows x 7168 x 2 = 231,669,760 each.
  // Built: 2 x 231,669,760 + 61 x (36,647,776 + norms 28,672) + 3 x 49,557,312
  //        + 58 x 1,418,807,616 + final norm 14,336 + RoPE 41,943,040 = 85,182,073,888.
  // Post-load: per layer w_kc [16, 128, 512] and w_vc [16, 512, 128] bf16, 2,097,152 each,
  // stay (+ 61 x 4,194,304); the bf16 dequantized kv_b_proj (4,194,304) is transient.
  EXPECT_EQ(resident_bytes(w).value(), 85'182'073'888 + 61 * 4'194'304);
  EXPECT_EQ(allocated_bytes(w).value(), 85'182'073'888 + 61 * 2 * 4'194'304);
  const WeightTensor* dequantized = find(w, "model.layers.0.self_attn.kv_b_proj.dequantized");
  ASSERT_NE(dequantized, nullptr);
  EXPECT_EQ(dequantized->phase, WeightPhase::kPostLoad);
  EXPECT_EQ(w[static_cast<size_t>(dequantized->released_after)].name,
            "model.layers.0.self_attn.w_vc");
}

TEST(RankWeights, SharedExpertsStaySeparateUnderExpertParallelism) {
  // DeepSeek-V3, TP8 + EP8: no fusion, 256 / 8 = 32 whole experts per rank, and the shared
  // expert as a TP-sharded MLP: gate_up [2 x 2048/8, 7168] fp8 = 3,670,016 B.
  const std::vector<WeightTensor> w = weights(model("deepseek-v3"), {.tp_size = 8, .ep_size = 8});
  EXPECT_EQ(shape_of(w, "model.layers.3.mlp.experts.w13_weight"),
            (std::vector<std::int64_t>{32, 4096, 7168}));
  EXPECT_EQ(bytes_of(w, "model.layers.3.mlp.shared_experts.gate_up_proj.weight"), 3'670'016);
}

TEST(RankWeights, KimiK2ThinkingInt4Tp8) {
  const std::vector<WeightTensor> w = weights(model("kimi-k2-thinking"), {.tp_size = 8});
  // Attention, the dense layer 0 and shared experts stay bf16 (ignore list); 64 / 8 = 8 heads:
  //   fused_qkv_a [2112, 7168] x 2 = 30,277,632; q_b [1536, 1536] x 2 = 4,718,592;
  //   kv_b [2048, 512] x 2 = 2,097,152; o [7168, 1024] x 2 = 14,680,064; norms 4,096.
  EXPECT_EQ(find(w, "model.layers.0.self_attn.q_b_proj.weight_packed"), nullptr);
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.fused_qkv_a_proj_with_mqa.weight"), 30'277'632);
  EXPECT_EQ(bytes_of(w, "model.layers.0.mlp.gate_up_proj.weight"), 66'060'288);
  EXPECT_EQ(bytes_of(w, "model.layers.1.mlp.shared_experts.down_proj.weight"), 3'670'016);
  // Routed experts, INT4 packed 8 per int32, bf16 scale per 32 weights; 384 experts per
  // rank, 2048 / 8 = 256 rows each:
  //   w13_weight_packed [384, 7168/8 = 896, 512] x 4 = 704,643,072
  //   w2_weight_packed  [384, 256/8 = 32, 7168] x 4 = 352,321,536
  //   w13_weight_scale  [384, 7168/32 = 224, 512] x 2 = 88,080,384
  //   w2_weight_scale   [384, 256/32 = 8, 7168] x 2 = 44,040,192
  //   two weight_shape [384, 2] x 2 = 1,536 each; g_idx and sort indices
  //   [384, 7168] and [384, 256] int32, two of each = 22,806,528   -> 1,211,894,784
  EXPECT_EQ(shape_of(w, "model.layers.1.mlp.experts.w13_weight_packed"),
            (std::vector<std::int64_t>{384, 896, 512}));
  EXPECT_EQ(bytes_of(w, "model.layers.60.mlp.experts.w2_weight_packed"), 352'321'536);
  EXPECT_EQ(bytes_of(w, "model.layers.1.mlp.experts.w13_weight_scale"), 88'080'384);
  EXPECT_EQ(bytes_of(w, "model.layers.1.mlp.experts.w2_weight_scale"), 44'040'192);
  // yarn RoPE: 4096 x 64 = 262,144 positions x 64 x 4 B = 67,108,864.
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.rotary_emb.cos_sin_cache"), 67'108'864);
  // Built: embedding + lm_head 2 x 20480 x 7168 x 2 = 587,202,560; 61 x (51,777,536 + norms
  // 28,672); dense layer 99,090,432; 60 MoE layers x (gate 5,505,024 + bias 1,536 + experts
  // 1,211,894,784 + shared 11,010,048); norm 14,336; RoPE 67,108,864 = 77,618,278,400.
  // Post-load: w_kc + w_vc 2 x 8 x 128 x 512 x 2 = 2,097,152 per layer stay; each MoE layer
  // frees its g_idx tensors (22,806,528) and keeps a Marlin workspace of 132 SMs x 4 int32
  // (2,112 B); the Marlin repack copies are transient.
  EXPECT_EQ(resident_bytes(w).value(),
            77'618'278'400 + 61 * 2'097'152 - 60 * 22'806'528 + 60 * 2'112);
  EXPECT_EQ(bytes_of(w, "model.layers.1.mlp.experts.workspace"), 2'112);
}

TEST(RankWeights, GptOss20bMxfp4Tp1) {
  const std::vector<WeightTensor> w = weights(model("gpt-oss-20b"), {});
  // Experts MXFP4 (32 experts, intermediate 2880, already a multiple of 32, hidden 2880):
  //   w13_weight [32, 5760, 1440] u8 = 265,420,800; w13_weight_scale [32, 5760, 90] = 16,588,800
  //   w13_weight_bias [32, 5760] bf16 = 368,640; w2_weight [32, 2880, 1440] = 132,710,400;
  //   w2_weight_scale [32, 2880, 90] = 8,294,400; w2_weight_bias [32, 2880] bf16 = 184,320
  //   -> 423,567,360
  EXPECT_EQ(shape_of(w, "model.layers.0.mlp.experts.w13_weight"),
            (std::vector<std::int64_t>{32, 5760, 1440}));
  EXPECT_EQ(bytes_of(w, "model.layers.23.mlp.experts.w2_weight_scale"), 8'294'400);
  // Attention in 16-bit (no torch_dtype: float16 under --dtype auto; same bytes as bf16):
  //   qkv (64 + 2 x 8) x 64 = 5120 rows x 2880 x 2 = 29,491,200 + bias 10,240;
  //   sinks 64 x 2 = 128; o [2880, 4096] x 2 = 23,592,960 + bias 5,760.
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.weight"), 29'491'200);
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.sinks"), 128);
  EXPECT_EQ(find(w, "model.layers.0.self_attn.qkv_proj.weight")->dtype, DType::kFloat16);
  // Router [32, 2880] x 2 + bias 64; norms 11,520 -> per layer 476,863,552 x 24.
  // Embedding and lm_head 201088 x 2880 x 2 = 1,158,266,880 each; norm 5,760;
  // yarn RoPE 4096 x 32 = 131,072 positions x 64 x 4 = 33,554,432.
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.rotary_emb.cos_sin_cache"), 33'554'432);
  EXPECT_EQ(resident_bytes(w).value(),
            std::int64_t{24} * 476'863'552 + 2 * 1'158'266'880LL + 5'760 + 33'554'432);
  EXPECT_EQ(
      names_from(w, 7, 7),
      (std::vector<std::string>{
          "model.layers.0.mlp.experts.w13_weight", "model.layers.0.mlp.experts.w13_weight_scale",
          "model.layers.0.mlp.experts.w13_weight_bias", "model.layers.0.mlp.experts.w2_weight",
          "model.layers.0.mlp.experts.w2_weight_scale", "model.layers.0.mlp.experts.w2_weight_bias",
          "model.layers.0.mlp.router.weight"}));
}

TEST(RankWeights, Fp8BlockShapesThatDoNotSplitAreRejected) {
  // Qwen3-235B-A22B-FP8 at TP8: 1536 / 8 = 192 rows per expert is not a multiple of 128.
  Result<WeightList> w = rank_weights(model("qwen3-235b-a22b-fp8"), {.tp_size = 8}, {});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(),
            "model.layers.0.mlp.experts: The output_size of gate's and up's weight = 192 is "
            "not divisible by weight quantization block_n = 128.");
  // TP4: 384 rows split fine; attention stays FP8 and the router bf16 [128, 4096].
  const std::vector<WeightTensor> ok = weights(model("qwen3-235b-a22b-fp8"), {.tp_size = 4});
  EXPECT_EQ(find(ok, "model.layers.0.self_attn.qkv_proj.weight")->dtype, DType::kFloat8E4M3);
  EXPECT_EQ(bytes_of(ok, "model.layers.0.mlp.gate.weight"), 128 * 4096 * 2);
}

TEST(RankWeights, ModelOptFp8KeepsPerTensorScales) {
  // Llama-3.1-70B-Instruct-FP8 (ModelOpt), TP8: FP8 weights with one float32 weight scale and
  // one input scale per fused part, requantized after loading to scalar Parameters.
  const std::vector<WeightTensor> w =
      weights(model("llama-3.1-70b-instruct-fp8-nvidia"), {.tp_size = 8});
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.weight"), 1280 * 8192);
  EXPECT_EQ(shape_of(w, "model.layers.0.self_attn.qkv_proj.input_scale"),
            (std::vector<std::int64_t>{3}));
  EXPECT_EQ(bytes_of(w, "lm_head.weight"), 262'668'288);  // excluded: stays bf16
  // Resident: FP8 halves every linear of the §9 numbers: (20,971,520 + 16,777,216 +
  // 117,440,512 + 58,720,256) / 2 = 106,954,752 per layer; norms 32,768; after loading each of
  // the 4 linears keeps two scalar scales (8 B) -> 106,987,552 x 80 = 8,559,004,160; plus
  // embedding + lm_head 525,336,576, final norm 16,384, RoPE 67,108,864.
  EXPECT_EQ(resident_bytes(w).value(),
            std::int64_t{80} * (106'954'752 + 32'768 + 4 * 8) + 525'336'576 + 16'384 + 67'108'864);
}

TEST(RankWeights, Glm45AirDenseFirstLayerSharedExpertsAndPartialRope) {
  const std::vector<WeightTensor> w = weights(model("glm-4.5-air"), {.tp_size = 8});
  // 96 heads / 8 = 12, 8 KV heads / 8 = 1: qkv (12 + 2) x 128 = 1792 rows x 4096 x 2 =
  // 14,680,064 with a bias of 1792 x 2 = 3,584 (attention_bias); o_proj without bias.
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.weight"), 14'680'064);
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.bias"), 3'584);
  EXPECT_EQ(find(w, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  // partial_rotary_factor 0.5: rotary dim 64, [131072, 64] float32 = 33,554,432.
  EXPECT_EQ(shape_of(w, "model.layers.0.self_attn.rotary_emb.cos_sin_cache"),
            (std::vector<std::int64_t>{131072, 64}));
  // first_k_dense_replace 1: layer 0 is a dense MLP of 10944 / 8 = 1368 rows per half.
  EXPECT_EQ(bytes_of(w, "model.layers.0.mlp.gate_up_proj.weight"), 22'413'312);
  // MoE layers: gate bf16 [128, 4096] + float32 correction bias [128]; 128 experts of
  // 1408 / 8 = 176 rows: w13 [128, 352, 4096] x 2 = 369,098,752; the shared expert stays a
  // TP-sharded MLP: gate_up [352, 4096] x 2 = 2,883,584, down [4096, 176] x 2 = 1,441,792.
  EXPECT_EQ(bytes_of(w, "model.layers.1.mlp.gate.weight"), 1'048'576);
  EXPECT_EQ(bytes_of(w, "model.layers.1.mlp.gate.e_score_correction_bias"), 512);
  EXPECT_EQ(bytes_of(w, "model.layers.1.mlp.experts.w13_weight"), 369'098'752);
  EXPECT_EQ(bytes_of(w, "model.layers.45.mlp.shared_experts.gate_up_proj.weight"), 2'883'584);
  EXPECT_EQ(bytes_of(w, "model.layers.45.mlp.shared_experts.down_proj.weight"), 1'441'792);
  EXPECT_EQ(find(w, "model.layers.46.input_layernorm.weight"), nullptr);  // no MTP layer
  // vLLM builds the router in float32 (WeightRules::float32_glm_router): [128, 4096] x 4, on
  // each of the 45 MoE layers 1,048,576 bytes more than SGLang's.
  const std::vector<WeightTensor> vllm =
      weights(model("glm-4.5-air"), {.tp_size = 8}, {.float32_glm_router = true});
  EXPECT_EQ(bytes_of(vllm, "model.layers.1.mlp.gate.weight"), 2'097'152);
  EXPECT_EQ(resident_bytes(vllm).value() - resident_bytes(w).value(), 45 * 1'048'576);
}

// zai-org/GLM-4.7-Flash (its bundled config.json), TP 1: DeepSeek-V3's layout with a float32
// router, [64, 2048] x 4 = 524,288 bytes and a float32 correction bias of 64 x 4, in both
// engines. SGLang folds the one shared expert into the FusedMoE as a 65th expert; vLLM keeps
// it a separate MLP. The bytes are the same: 65 x 3072 x 2048 x 2 = 817,889,280 against
// 64 x 3072 x 2048 x 2 = 805,306,368 plus the shared gate_up [3072, 2048] x 2 = 12,582,912.
TEST(RankWeights, Glm47FlashHasAFloat32RouterAndFusesItsSharedExpertInSglang) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(
      GPUMEM_SOURCE_DIR "/model/llm/configs/zai-org--GLM-4.7-Flash/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->attention, AttentionKind::kMla);
  const std::vector<WeightTensor> sglang = weights(*a, {});
  const std::vector<WeightTensor> vllm =
      weights(*a, {}, {.shared_experts_fusion = false, .float32_glm_router = true});
  for (const std::vector<WeightTensor>* w : {&sglang, &vllm}) {
    EXPECT_EQ(find(*w, "model.layers.1.mlp.gate.weight")->dtype, DType::kFloat32);
    EXPECT_EQ(bytes_of(*w, "model.layers.1.mlp.gate.weight"), 524'288);
    EXPECT_EQ(bytes_of(*w, "model.layers.1.mlp.gate.e_score_correction_bias"), 256);
  }
  EXPECT_EQ(bytes_of(sglang, "model.layers.1.mlp.experts.w13_weight"), 817'889'280);
  EXPECT_EQ(find(sglang, "model.layers.1.mlp.shared_experts.gate_up_proj.weight"), nullptr);
  EXPECT_EQ(bytes_of(vllm, "model.layers.1.mlp.experts.w13_weight"), 805'306'368);
  EXPECT_EQ(bytes_of(vllm, "model.layers.1.mlp.shared_experts.gate_up_proj.weight"), 12'582'912);
  EXPECT_EQ(resident_bytes(sglang).value(), resident_bytes(vllm).value());
  // Layer 0 is dense (first_k_dense_replace 1): gate_up [2 x 10240, 2048] x 2.
  EXPECT_EQ(bytes_of(sglang, "model.layers.0.mlp.gate_up_proj.weight"), 83'886'080);
}

TEST(RankWeights, Gemma3ReplicatesItsEmbeddingAndBuildsTwoRopeCaches) {
  const std::vector<WeightTensor> w = weights(model("gemma-3-27b-it"), {.tp_size = 4});
  // nn.Embedding of the whole vocabulary on every rank: 262208 x 5376 x 2 = 2,819,260,416;
  // tied, so no lm_head.
  EXPECT_EQ(bytes_of(w, "model.embed_tokens.weight"), 2'819'260'416);
  EXPECT_EQ(find(w, "lm_head.weight"), nullptr);
  // 32 heads / 4 = 8, 16 KV heads / 4 = 4: (8 + 2 x 4) x 128 = 2048 rows x 5376 x 2.
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.qkv_proj.weight"), 22'020'096);
  // Sliding layer 0 builds the cache of base 10000, global layer 5 the one of base 1e6; both
  // "default" [131072, 128] float32 = 67,108,864. No other layer allocates one.
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.rotary_emb.cos_sin_cache"), 67'108'864);
  EXPECT_EQ(bytes_of(w, "model.layers.5.self_attn.rotary_emb.cos_sin_cache"), 67'108'864);
  int caches = 0;
  for (const WeightTensor& t : w) caches += is_rope(t);
  EXPECT_EQ(caches, 2);
  EXPECT_NE(find(w, "model.layers.61.post_feedforward_layernorm.weight"), nullptr);
  // The first model.norm, right after the embedding, is freed when the second replaces it.
  const auto embed = std::find_if(w.begin(), w.end(), [](const WeightTensor& t) {
    return t.name == "model.embed_tokens.weight";
  });
  ASSERT_NE(embed, w.end());
  const WeightTensor& first_norm = *(embed + 1);
  EXPECT_EQ(first_norm.name, "model.norm.weight");
  EXPECT_EQ(w[static_cast<size_t>(first_norm.released_after)].name, "model.norm.weight");
  EXPECT_EQ(w[static_cast<size_t>(first_norm.released_after)].released_after, kResident);
}

// vllm gemma3.py Gemma3Model and Gemma3Attention (gemma3_hf_text_model off): the embedding is a
// VocabParallelEmbedding, 262,208 / 4 = 65,552 rows x 5376 x 2 on each of 4 ranks, beside a
// scalar bf16 normalizer; no HF inv_freq buffers; sliding layers cache 131,072 positions at
// base 10,000, global layers the config's linear factor 8: 1,048,576 x 128, both in the model
// dtype the rules give (bf16 in vLLM).
TEST(RankWeights, Gemma3InVllmShardsItsEmbeddingAndScalesTheGlobalRope) {
  WeightRules rules;
  rules.gemma3_hf_text_model = false;
  rules.rope_cache_dtype = DType::kBFloat16;
  const std::vector<WeightTensor> w = weights(model("gemma-3-27b-it"), {.tp_size = 4}, rules);
  EXPECT_EQ(bytes_of(w, "model.embed_tokens.weight"), 704'815'104);
  EXPECT_EQ(bytes_of(w, "model.normalizer"), 2);
  EXPECT_EQ(find(w, "model.rotary_emb.inv_freq"), nullptr);
  EXPECT_EQ(bytes_of(w, "model.layers.0.self_attn.rotary_emb.cos_sin_cache"), 33'554'432);
  EXPECT_EQ(bytes_of(w, "model.layers.5.self_attn.rotary_emb.cos_sin_cache"), 268'435'456);
  int caches = 0;
  for (const WeightTensor& t : w) caches += is_rope(t);
  EXPECT_EQ(caches, 2);
}

// sglang gemma3_mm.py Gemma3ForConditionalGeneration: the SigLIP tower (siglip.py) and the
// projector come first, split over TP 4 like a decoder layer.
TEST(RankWeights, Gemma3BuildsItsSiglipTowerBeforeTheLanguageModel) {
  const std::vector<WeightTensor> w = weights(model("gemma-3-27b-it"), {.tp_size = 4});
  const std::string t = "vision_tower.vision_model.";
  EXPECT_EQ(w[0].name, t + "embeddings.patch_embedding.weight");
  EXPECT_EQ(bytes_of(w, t + "embeddings.patch_embedding.weight"), 1152 * 3 * 14 * 14 * 2);
  // (896 / 14)^2 = 4096 positions, a VocabParallelEmbedding: 1024 rows per rank.
  EXPECT_EQ(bytes_of(w, t + "embeddings.position_embedding.weight"), 1024 * 1152 * 2);
  EXPECT_EQ(bytes_of(w, t + "embeddings.position_ids"), 4096 * 8);
  // 16 heads of 72 / 4 = 4 heads: q, k and v of 288 rows each, biased.
  const std::string l = t + "encoder.layers.26.";
  EXPECT_EQ(bytes_of(w, l + "self_attn.qkv_proj.weight"), 3 * 288 * 1152 * 2);
  EXPECT_EQ(bytes_of(w, l + "self_attn.qkv_proj.bias"), 3 * 288 * 2);
  // The row-parallel output projection and fc2 keep the whole bias.
  EXPECT_EQ(bytes_of(w, l + "self_attn.proj.weight"), 1152 * 288 * 2);
  EXPECT_EQ(bytes_of(w, l + "self_attn.proj.bias"), 1152 * 2);
  EXPECT_EQ(bytes_of(w, l + "mlp.fc1.weight"), 4304 / 4 * 1152 * 2);
  EXPECT_EQ(bytes_of(w, l + "mlp.fc1.bias"), 4304 / 4 * 2);
  EXPECT_EQ(bytes_of(w, l + "mlp.fc2.weight"), 1152 * 4304 / 4 * 2);
  EXPECT_EQ(bytes_of(w, l + "mlp.fc2.bias"), 1152 * 2);
  EXPECT_EQ(bytes_of(w, l + "layer_norm2.bias"), 1152 * 2);
  EXPECT_EQ(bytes_of(w, "multi_modal_projector.mm_input_projection_weight"), 1152 * 5376 * 2);
  // Everything before the language model's embedding: per layer 2 x 2 norms + qkv + proj +
  // fc1 + fc2 with their biases.
  std::int64_t vision = 0;
  for (const WeightTensor& x : w) {
    if (x.name == "model.embed_tokens.weight") break;
    vision += x.bytes.value();
  }
  const std::int64_t per_layer = (4 * 1152 + 3 * 288 * (1152 + 1) + 1152 * 288 + 1152 +
                                  1076 * (1152 + 1) + 1152 * 1076 + 1152) *
                                 2;
  EXPECT_EQ(vision, (1152 * 3 * 14 * 14 + 1152 + 1024 * 1152 + 2 * 1152 + 1152 * 5376 + 1152) * 2 +
                        4096 * 8 + 27 * per_layer);
  // TP 3 cannot split the 16 heads.
  EXPECT_EQ(rank_weights(model("gemma-3-27b-it"), {.tp_size = 3}, {}).status().message(),
            "the vision tower's attention heads (16) is not divisible by the tensor-parallel "
            "size 3; SGLang stops with AssertionError: 16 is not divisible by 3");
}

TEST(RankWeights, MixtralBuildsTheGateBeforeTheExperts) {
  const std::vector<WeightTensor> w = weights(model("mixtral-8x7b-instruct-v0.1"), {.tp_size = 8});
  EXPECT_EQ(names_from(w, 4, 3),
            (std::vector<std::string>{"model.layers.0.block_sparse_moe.gate.weight",
                                      "model.layers.0.block_sparse_moe.experts.w13_weight",
                                      "model.layers.0.block_sparse_moe.experts.w2_weight"}));
  // 8 experts x 2 x 14336 / 8 = 3584 rows x 4096 x 2 B.
  EXPECT_EQ(bytes_of(w, "model.layers.0.block_sparse_moe.experts.w13_weight"), 234'881'024);
}

TEST(RankWeights, DpAttentionShardsAttentionOverTheAttentionGroupOnly) {
  // DeepSeek-V3, TP8 with DP attention over 8: attention TP size 1 keeps all 128 heads
  // (q_b_proj 128 x 192 = 24,576 rows), the embedding is replicated (129280 rows), the
  // lm_head stays split over TP8 (16160 rows).
  const std::vector<WeightTensor> w =
      weights(model("deepseek-v3"), {.tp_size = 8, .enable_dp_attention = true, .dp_size = 8});
  EXPECT_EQ(shape_of(w, "model.layers.0.self_attn.q_b_proj.weight"),
            (std::vector<std::int64_t>{24576, 1536}));
  EXPECT_EQ(bytes_of(w, "model.embed_tokens.weight"), 1'853'358'080);
  EXPECT_EQ(bytes_of(w, "lm_head.weight"), 231'669'760);
}

TEST(RankWeights, CompressedTensorsLinearLayersAndModelOptPerChannel) {
  // Kimi-K2-Thinking with only lm_head ignored: its attention becomes compressed-tensors
  // INT4 too. fused_qkv_a_proj_with_mqa: weight_packed [2112, 7168 / 8] int32 = 7,569,408,
  // weight_scale [2112, 7168 / 32] bf16 = 946,176, weight_shape int64 [2].
  Architecture kimi = model("kimi-k2-thinking");
  kimi.quantization.not_converted = ModulePatternSet{};
  kimi.quantization.not_converted.add(*ModulePattern::parse("lm_head"));
  // post_load_weights would dequantize an INT4 kv_b_proj through AWQ/GPTQ paths gpumem does
  // not model, so the absorbed copies are an error unless switched off.
  EXPECT_EQ(rank_weights(kimi, {.tp_size = 8}, {}).status().message(),
            "model.layers.0.self_attn.kv_b_proj: absorbed MLA weights (w_kc, w_vc) from a "
            "int32 kv_b_proj are not modelled");
  const std::vector<WeightTensor> w =
      weights(kimi, {.tp_size = 8}, WeightRules{.mla_absorbed_copies = false});
  const std::string a = "model.layers.0.self_attn.fused_qkv_a_proj_with_mqa";
  EXPECT_EQ(bytes_of(w, a + ".weight_packed"), 7'569'408);
  EXPECT_EQ(bytes_of(w, a + ".weight_scale"), 946'176);
  EXPECT_EQ(shape_of(w, a + ".weight_shape"), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(find(w, "model.layers.0.self_attn.w_kc"), nullptr);

  // ModelOpt FP8_PER_CHANNEL_PER_TOKEN: one float32 scale per output row, no input scale.
  Architecture llama = model("llama-3.1-70b-instruct-fp8-nvidia");
  llama.quantization.method = QuantMethod::kModelOptFp8PerChannel;
  const std::vector<WeightTensor> pc = weights(llama, {.tp_size = 8});
  EXPECT_EQ(shape_of(pc, "model.layers.0.self_attn.qkv_proj.weight_scale"),
            (std::vector<std::int64_t>{1280, 1}));
  EXPECT_EQ(find(pc, "model.layers.0.self_attn.qkv_proj.input_scale"), nullptr);
}

TEST(RankWeights, LayoutsTheModelCannotTakeAreErrors) {
  // Mistral's 32768-row vocabulary does not split over 3 ranks.
  Result<WeightList> w = rank_weights(model("mistral-7b-instruct-v0.3"), {.tp_size = 3}, {});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(),
            "vocabulary of 32768 rows, padded to 32768, is not divisible by tensor-parallel "
            "size 3");
  EXPECT_EQ(rank_weights(model("llama-3.1-8b-instruct"), {.tp_size = 4, .ep_size = 3}, {})
                .status()
                .message(),
            "ep_size 3 does not divide tp_size 4");
  EXPECT_EQ(rank_weights(model("eagle3-kimi-k2"), {}, {}).status().message(),
            "eagle3-kimi-k2 is an EAGLE-3 draft head; its weights come from draft_weights with "
            "the target model");
}

}  // namespace
}  // namespace gpumem
