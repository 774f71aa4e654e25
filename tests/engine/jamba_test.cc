// AI21 Jamba (JambaForCausalLM) from its config: 28 Mamba-1 layers and 4 attention layers
// without RoPE (every eighth from layer 4), 16 experts behind a replicated router on every odd
// layer and a dense gated MLP on the others; the Mamba-1 state per request in vLLM's shared
// pages; and what each engine refuses; every expected value derived here from the config.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kMini = "ai21labs--AI21-Jamba-1.5-Mini";

constexpr std::int64_t kHidden = 4096;
constexpr std::int64_t kMambaLayers = 28;
constexpr std::int64_t kAttentionLayers = 4;
constexpr std::int64_t kMoeLayers = 16;       // the odd layers
constexpr std::int64_t kVocab = 65536;        // 64 x 1024: no padding
constexpr std::int64_t kInner = 2 * kHidden;  // mamba_expand x hidden
constexpr std::int64_t kState = 16;
constexpr std::int64_t kRank = 256;  // mamba_dt_rank
constexpr std::int64_t kWidth = 14336;

// One rank's Mamba-1 mixer at TP `tp`, in bfloat16 units: conv1d [inner, 1, 4] and its bias,
// in_proj (x and z), x_proj [256 + 2 x 16, inner] (row-parallel), dt_proj and its bias, A
// (float32: two units per element), D, out_proj, and the replicated dt/B/C norms.
constexpr std::int64_t mamba_units(std::int64_t tp) {
  const std::int64_t inner = kInner / tp;
  return inner * 4 + inner + 2 * inner * kHidden + (kRank + 2 * kState) * inner + inner * kRank +
         inner + 2 * inner * kState + inner + kHidden * inner + kRank + 2 * kState;
}

// One rank's attention: q of 32 / tp heads, k and v of 8 / tp, all of 128; no bias, no RoPE.
constexpr std::int64_t attention_units(std::int64_t tp) {
  return kHidden * (32 + 16) / tp * 128 + 32 / tp * 128 * kHidden;
}

// The router [16, hidden] and the 16 experts' w13 and w2 over 14,336 / tp; the dense MLP alike.
constexpr std::int64_t moe_units(std::int64_t tp) {
  return 16 * kHidden + 16 * 3 * kHidden * (kWidth / tp);
}
constexpr std::int64_t dense_units(std::int64_t tp) { return 3 * kHidden * (kWidth / tp); }

// What one GPU of `tp` holds once loaded: the embedding and the untied head, the layers with
// input_layernorm and pre_ff_layernorm each, final_layernorm.
constexpr std::int64_t rank_units(std::int64_t tp) {
  return 2 * kVocab / tp * kHidden + kMambaLayers * mamba_units(tp) +
         kAttentionLayers * attention_units(tp) + kMoeLayers * moe_units(tp) +
         (32 - kMoeLayers) * dense_units(tp) + 32 * 2 * kHidden + kHidden;
}

TEST(Jamba, ParameterCountFollowsTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kMini) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kJamba);
  EXPECT_EQ(a->rotary_dim, 0);
  EXPECT_EQ(a->attention_layers(0, 32), kAttentionLayers);
  EXPECT_TRUE(a->is_linear_layer(0) && !a->is_linear_layer(4) && !a->is_linear_layer(28));
  EXPECT_TRUE(a->is_moe_layer(1) && !a->is_moe_layer(4) && a->is_moe_layer(31));
  // rank_units counts A (float32) as two units per element; the checkpoint's A_log is one.
  EXPECT_EQ(parameter_count(*a), rank_units(1) - kMambaLayers * kInner * kState);
  // AI21: "52B total parameters"; no safetensors total_size was found (SOURCE.md).
  EXPECT_EQ(parameter_count(*a), 51'570'323'328LL);
}

// vLLM keeps both state tensors in the model dtype ("auto"): a conv window of 3 x 4,096
// channels and a state of 4,096 x 16 per layer at TP 2, 155,648 B; the attention block is the
// smallest multiple of 16 tokens whose page (4 of 8 KV heads of 128, K and V, bfloat16: 2,048 B
// a token) holds it: 80 tokens. The 4 attention and 28 Mamba layers share pages in groups of 4.
TEST(Jamba, VllmKeepsMamba1StateInPagesOfEightyTokens) {
  const Ledger vllm = family_ledger("vllm", kMini, 2, "");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), 2 * rank_units(2));
  EXPECT_EQ(2 * rank_units(2), 51'575'316'224LL);
  const std::int64_t state = 3 * (kInner / 2) * 2 + kInner / 2 * kState * 2;
  const std::int64_t token = 2 * 4 * 128 * 2;
  const std::int64_t block = 16 * ((state + 16 * token - 1) / (16 * token));
  EXPECT_EQ(state, 155'648);
  EXPECT_EQ(block, 80);
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), block * token);
  EXPECT_EQ(ledger_fact(vllm, "kv_layers_per_group"), kAttentionLayers);
}

TEST(Jamba, WhatTheEnginesRefuse) {
  EXPECT_EQ(family_errors("sglang", kMini, "    --tp-size: 2\n", 2),
            "f.yaml:3:9: SGLang's JambaForCausalLM is not modelled: no release is known to serve "
            "it (its models/jamba.py copies disagree; issue #1190 is open)\n");
  EXPECT_EQ(family_errors("vllm", kMini, "    --tensor-parallel-size: 2\n", 2, "0.10.1"),
            "f.yaml:4:12: JambaForCausalLM with vLLM 0.10.1 is not modelled (from 0.10.2: V1's "
            "hybrid KV-cache manager; V0's MambaCacheManager before it is not)\n");
  EXPECT_EQ(family_errors("vllm", kMini,
                          "    --tensor-parallel-size: 2\n    --enable-prefix-caching: true\n", 2),
            "f.yaml:7:30: --enable-prefix-caching with JambaForCausalLM is not modelled (vLLM's "
            "'all' state-cache mode and its blocks of mamba chunks)\n");
}

// From vLLM 0.19 (PR #38270) full CUDA graphs decode every running sequence with a state block
// of its own: a KV cache of 327,680,000 B holds 327,680,000 / (4 tensors x 163,840 B) = 500
// blocks, fewer than the H200's default 1,024 sequences.
TEST(Jamba, VllmStopsWhenTheStateBlocksAreFewerThanTheSequences) {
  const std::string args = "    --max-model-len: 4096\n    --kv-cache-memory-bytes: 327680000\n";
  const Ledger l = family_ledger("vllm", kMini, 2, args);
  ASSERT_FALSE(l.fits());
  const GpuLedger* g = l.first_failure();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->steps.back().name, "kv_cache");
  EXPECT_EQ(g->steps.back().message,
            "ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (500). Each "
            "decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. "
            "Please lower max_num_seqs to at most 500 or increase gpu_memory_utilization.");
  EXPECT_TRUE(family_ledger("vllm", kMini, 2, args + "    --max-num-seqs: 500\n").fits());
  EXPECT_TRUE(family_ledger("vllm", kMini, 2, args, "h200", "0.18.0").fits());
}

std::string jamba_variant(const std::string& name, const std::string& from, const std::string& to) {
  return config_variant(kMini, "jamba-" + name, from, to);
}

// transformers JambaConfig's own checks, and what gpumem's mixer does not build, by key; a
// config of one expert holds dense MLPs only.
TEST(Jamba, ConfigsAreReadAsVllmWouldOrRefused) {
  const std::pair<std::string, std::string> cases[] = {
      {jamba_variant("offset", "\"attn_layer_offset\": 4", "\"attn_layer_offset\": 8"),
       ":6:24: ValueError: attn_layer_offset (8) must be smaller than attn_layer_period (8)\n"},
      {jamba_variant("wide", "\"mamba_expand\": 2", "\"mamba_expand\": 20"),
       ":23:19: 'mamba_expand' gives a Mamba dimension of 81920, more than gpumem reads (65536)\n"},
      {jamba_variant("bias", "\"mamba_proj_bias\": false", "\"mamba_proj_bias\": true"),
       ":24:22: 'mamba_proj_bias' true is not modelled\n"},
      {jamba_variant("quant", "\"use_cache\": true",
                     "\"use_cache\": true,\n  \"quantization_config\": {\"quant_method\": \"fp8\", "
                     "\"weight_block_size\": [128, 128]}"),
       ":42:26: a quantized JambaForCausalLM checkpoint is not modelled\n"},
  };
  for (const auto& [dir, message] : cases) {
    EXPECT_EQ(config_dir_errors(dir), dir + "/config.json" + message);
  }
  const std::string dense = jamba_variant("dense", "\"num_experts\": 16", "\"num_experts\": 1");
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(dense + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(parameter_count(*a), 51'570'323'328LL - kMoeLayers * (moe_units(1) - dense_units(1)));
}

}  // namespace
}  // namespace gpumem
