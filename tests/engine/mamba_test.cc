// Attention-free Mamba stacks from their configs: Mamba-Codestral (Mamba2ForCausalLM, 64
// Mamba-2 layers) and mamba-130m-hf (MambaForCausalLM, 24 Mamba-1 layers, a tied head); the
// state of one request in one block of vLLM's single group, the block as long as the context;
// and what each engine refuses. Every expected value is derived here from the config.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "engine/vllm/activation_model.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kCodestral = "mistralai--Mamba-Codestral-7B-v0.1";
const std::string kMamba130m = "state-spaces--mamba-130m-hf";

// Codestral: hidden 4,096, 64 layers, 128 heads of 64 (inner 8,192), 8 groups, state 128,
// kernel 4, vocabulary 32,768 (a multiple of 64: no padding), untied head.
constexpr std::int64_t kHidden = 4096;
constexpr std::int64_t kLayers = 64;
constexpr std::int64_t kInner = 8192;
constexpr std::int64_t kHeads = 128;
constexpr std::int64_t kState = 128;
constexpr std::int64_t kConvDim = kInner + 2 * 8 * kState;  // x, B and C
constexpr std::int64_t kVocab = 32768;

// One rank's Codestral bytes at TP `tp` (8 groups split at 1, 2, 4 and 8): per layer conv1d
// [conv_dim / tp, 1, 4] and its bias, in_proj (z, x B C, dt), dt_bias, A (float32), D, the gated
// norm, out_proj and the layer's norm; the embedding, the head and norm_f.
constexpr std::int64_t codestral_rank_bytes(std::int64_t tp) {
  const std::int64_t conv = kConvDim / tp;
  const std::int64_t layer =
      2 * (conv * 4 + conv + (kInner + kConvDim + kHeads) / tp * kHidden + kHeads / tp +
           kHeads / tp + kInner / tp + kHidden * kInner / tp + kHidden) +
      4 * (kHeads / tp);
  return kLayers * layer + 2 * 2 * (kVocab / tp) * kHidden + 2 * kHidden;
}

TEST(Mamba, CodestralIsSixtyFourMamba2LayersWithoutAttention) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kCodestral) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kMamba);
  EXPECT_EQ(a->linear.kind, LinearKind::kMamba2);
  EXPECT_EQ(a->attention_layers(0, kLayers), 0);
  EXPECT_TRUE(std::all_of(a->layer_types.begin(), a->layer_types.end(),
                          [](LayerAttention t) { return t == LayerAttention::kLinear; }));
  EXPECT_EQ(a->num_attention_heads, 0);
  EXPECT_EQ(a->max_position_embeddings, 2048);  // the engines' default: the config has none
  EXPECT_FALSE(a->tie_word_embeddings);
  // The checkpoint's A_log is in the model dtype; vLLM's A is float32 (two bfloat16 units).
  EXPECT_EQ(2 * parameter_count(*a), codestral_rank_bytes(1) - 2 * kLayers * kHeads);
  // Mistral's model card says 7.3B; no safetensors total_size was found (SOURCE.md).
  EXPECT_EQ(parameter_count(*a), 7'285'403'648LL);
}

// vLLM's page of one Codestral layer at TP 1: the conv window, 3 x 10,240 bfloat16 channels,
// and the state, 128 heads x 64 x 128 in bfloat16: 2,158,592 B, unpadded. All 64 layers form
// one group and a request holds one block, whose size is max_model_len: the KV cache holds
// available / (64 x page) requests of 2,048 tokens.
TEST(Mamba, VllmHoldsOneStateBlockPerRequest) {
  const Ledger l = family_ledger("vllm", kCodestral, 1, "    --max-num-seqs: 512\n");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), codestral_rank_bytes(1));
  EXPECT_EQ(codestral_rank_bytes(1), 14'570'823'680LL);
  const std::int64_t page = 3 * kConvDim * 2 + kHeads * 64 * kState * 2;
  EXPECT_EQ(page, 2'158'592);
  EXPECT_EQ(ledger_fact(l, "kv_page_bytes"), page);
  EXPECT_EQ(ledger_fact(l, "kv_layers_per_group"), kLayers);
  const std::int64_t blocks = ledger_fact(l, "kv_bytes") / (kLayers * page);
  EXPECT_EQ(ledger_fact(l, "kv_blocks"), blocks);
  EXPECT_EQ(ledger_fact(l, "kv_tokens"), blocks * 2048);
  std::vector<std::string> log;
  for (const LedgerStep& step : l.gpus.front().steps) {
    log.insert(log.end(), step.log_lines.begin(), step.log_lines.end());
  }
  EXPECT_NE(std::find(log.begin(), log.end(),
                      "Maximum concurrency for 2,048 tokens per request: " +
                          std::to_string(blocks) + ".00x"),
            log.end());
  EXPECT_EQ(std::count_if(
                log.begin(), log.end(),
                [](const std::string& s) { return s.starts_with("Setting attention block size"); }),
            0);
  // At TP 2 each rank holds half the heads, channels and groups.
  const Ledger tp2 = family_ledger("vllm", kCodestral, 2, "    --max-num-seqs: 512\n");
  ASSERT_TRUE(tp2.fits());
  EXPECT_EQ(ledger_fact(tp2, "weights_logical_bytes"), codestral_rank_bytes(2));
  EXPECT_EQ(ledger_fact(tp2, "kv_page_bytes"), page / 2);
}

// vLLM's profile of one Codestral layer over 8,192 tokens: in_proj's z, x B C and dt, the
// convolved x B C, the scan's output and the gated norm, out_proj; bfloat16 throughout.
TEST(Mamba, VllmProfileRunsTheMixersOwnTensors) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kCodestral) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  constexpr std::int64_t n = 8192;
  std::vector<std::pair<std::string, std::int64_t>> got;
  for (const vllm::Activation& t :
       vllm::layer_activations(*a, vllm::ForwardShape{}, 0, n, 2, vllm::ActivationConstants{})) {
    got.emplace_back(t.name, t.bytes.value());
  }
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::int64_t>>{
                     {"input_layernorm", n * kHidden * 2},
                     {"in_proj", n * (kInner + kConvDim + kHeads) * 2},
                     {"conv1d", n * kConvDim * 2},
                     {"preallocated_ssm_out", n * kInner * 2},
                     {"gated_norm", n * kInner * 2},
                     {"out_proj", n * kHidden * 2}}));
}

// The default start-up on one H200 (1,024 sequences under full CUDA graphs) has fewer state
// blocks than sequences: vLLM 0.19 and later stop (PR #38270).
TEST(Mamba, VllmDefaultsOnOneH200HaveTooFewBlocksForTheSequences) {
  const Ledger l = family_ledger("vllm", kCodestral, 1, "");
  ASSERT_FALSE(l.fits());
  const GpuLedger* g = l.first_failure();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->steps.back().name, "kv_cache");
  const std::string blocks = std::to_string(ledger_fact(l, "kv_blocks"));
  EXPECT_LT(ledger_fact(l, "kv_blocks"), 1024);
  EXPECT_EQ(g->steps.back().message,
            "ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (" + blocks +
                "). Each decode sequence requires one Mamba cache block, so CUDA graph capture "
                "cannot proceed. Please lower max_num_seqs to at most " +
                blocks + " or increase gpu_memory_utilization.");
}

// mamba-130m-hf: hidden 768, 24 layers, inner 1,536, state 16, rank 48, kernel 4; no dt/B/C
// norms; the head is the embedding (50,280 rows padded to 50,304). float32 in the config,
// served in float16; A stays float32.
TEST(Mamba, Mamba1StackWithATiedHead) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kMamba130m) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->linear.kind, LinearKind::kMamba1);
  EXPECT_TRUE(a->tie_word_embeddings);
  EXPECT_EQ(a->linear.time_step_rank, 48);
  constexpr std::int64_t h = 768, inner = 1536, n = 16, r = 48;
  constexpr std::int64_t mixer = inner * 4 + inner + 2 * inner * h + (r + 2 * n) * inner +
                                 inner * r + inner + inner * n + inner + h * inner;
  EXPECT_EQ(parameter_count(*a), 24 * (mixer + h) + h + 50280 * h);
  EXPECT_EQ(parameter_count(*a), 129'135'360LL);
  const Ledger l = family_ledger("vllm", kMamba130m, 1, "    --max-num-seqs: 256\n");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"),
            2 * (24 * (mixer + h) + h + 50304 * h) + 2 * 24 * inner * n);
  EXPECT_EQ(ledger_fact(l, "kv_page_bytes"), 3 * inner * 2 + inner * n * 2);
}

TEST(Mamba, WhatTheEnginesRefuse) {
  EXPECT_EQ(family_errors("sglang", kCodestral, "    --tp-size: 1\n"),
            "f.yaml:3:9: SGLang's Mamba2ForCausalLM is not modelled: SGLang serves attention-free "
            "Mamba models only from PR #34556 (September 2026), whose release and state pool "
            "gpumem has not pinned down\n");
  EXPECT_EQ(family_errors("vllm", kCodestral, "    --tensor-parallel-size: 1\n", 1, "0.10.1"),
            "f.yaml:4:12: Mamba2ForCausalLM with vLLM 0.10.1 is not modelled (from 0.10.2: V1's "
            "hybrid KV-cache manager; V0's MambaCacheManager before it is not)\n");
  EXPECT_EQ(family_errors("vllm", kMamba130m,
                          "    --tensor-parallel-size: 1\n    --enable-prefix-caching: true\n"),
            "f.yaml:7:30: --enable-prefix-caching with MambaForCausalLM is not modelled (vLLM's "
            "'all' state-cache mode and its blocks of mamba chunks)\n");
}

// What gpumem's mixers do not build, by key.
TEST(Mamba, ConfigsGpumemDoesNotReadAreRefusedAtTheirKey) {
  const std::pair<std::string, std::string> cases[] = {
      {config_variant(kCodestral, "mamba-inner", "\"intermediate_size\": 8192",
                      "\"intermediate_size\": 8000"),
       ":15:24: the Mamba-2 inner width 8000 is not 'num_heads' x 'head_dim' (128 x 64); gpumem "
       "models mixers whose heads span the inner width\n"},
      {config_variant(kCodestral, "mamba-bias", "\"use_bias\": false", "\"use_bias\": true"),
       ":40:15: 'use_bias' true (biased in_proj and out_proj) is not modelled\n"},
      {config_variant(kMamba130m, "mamba-quant", "\"use_cache\": true",
                      "\"use_cache\": true, \"quantization_config\": {\"quant_method\": \"fp8\"}"),
       ":34:45: a quantized MambaForCausalLM checkpoint is not modelled\n"},
      {config_variant(kMamba130m, "mamba-wide", "\"intermediate_size\": 1536",
                      "\"intermediate_size\": 100000"),
       ":13:24: 'intermediate_size' gives a Mamba dimension of 100000, more than gpumem reads "
       "(65536)\n"},
  };
  for (const auto& [dir, message] : cases) {
    EXPECT_EQ(config_dir_errors(dir), dir + "/config.json" + message);
  }
}

}  // namespace
}  // namespace gpumem
