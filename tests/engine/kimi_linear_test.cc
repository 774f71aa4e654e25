// Kimi Linear (KimiLinearForCausalLM) from Kimi-Linear-48B-A3B-Instruct's config in both
// engines: 20 Kimi Delta Attention layers (kda_layers, counted from 1) among 7 MLA layers
// without RoPE, a dense first layer and 26 MoE layers of 256 experts with one shared. Every
// expected value is derived here from the config: hidden 2304, vocabulary 163,840, KDA 32 heads
// of 128 (projection width 4096, conv kernel 4), MLA 32 heads (q 128 + 64, v 128, latent 512 +
// 64), experts of 1024, the dense MLP 9216.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "support/model_configs.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kKimi = "moonshotai--Kimi-Linear-48B-A3B-Instruct";

constexpr std::int64_t kH = 2304;
constexpr std::int64_t kWidth = 32 * 128;
// KimiDeltaAttention: q/k/v, their convolutions, f_a/g_a (128 x hidden), f_b/g_b (4096 x 128),
// b_proj (32 heads), A_log (32), dt_bias (4096), o_norm (128), o_proj.
constexpr std::int64_t kKdaParams = 3 * kWidth * kH + 3 * kWidth * 4 + 2 * 128 * kH +
                                    2 * kWidth * 128 + 32 * kH + 32 + kWidth + 128 + kH * kWidth;
// MLA without q_lora_rank: q_proj (32 x 192), kv_a_proj_with_mqa (512 + 64) and its norm,
// kv_b_proj (32 x (128 + 128) over 512), o_proj.
constexpr std::int64_t kMlaParams = kH * 32 * 192 + kH * 576 + 512 + 512 * 32 * 256 + 32 * 128 * kH;
// 256 experts of gate, up and down, the router and its correction bias, one shared expert.
constexpr std::int64_t kMoeParams = 256 * 3 * kH * 1024 + 256 * kH + 256 + 3 * kH * 1024;
constexpr std::int64_t kParams = 2 * 163840 * kH                     // embedding, untied head
                                 + 20 * kKdaParams + 7 * kMlaParams  // attention
                                 + 3 * kH * 9216 + 26 * kMoeParams   // layer 0's MLP, experts
                                 + 27 * 2 * kH + kH;                 // norms
// Every tensor in bfloat16 but the KDA layers' A_log and dt_bias, float32.
constexpr std::int64_t kCheckpointBytes = 2 * kParams + 2 * 20 * (32 + kWidth);
// Both engines keep the q/k/v convolutions in float32 (params_dtype=torch.float32).
constexpr std::int64_t kConvWidening = 20 * 3 * kWidth * 4 * 2;
// SGLang keeps DeepSeek's absorbed w_kc and w_vc per MLA layer (32 x 128 x 512 each).
constexpr std::int64_t kAbsorbed = 7 * 2 * 32 * 128 * 512 * 2;

TEST(KimiLinear, LayersParametersAndCheckpointFollowTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kKimi) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kKimiLinear);
  EXPECT_EQ(a->attention, AttentionKind::kMla);
  EXPECT_EQ(a->linear.kind, LinearKind::kKimiDelta);
  // kda_layers counts from 1: the MLA layers are 3, 7, ..., 23 and 26.
  std::vector<std::int64_t> mla;
  for (std::int64_t l = 0; l < 27; ++l) {
    if (!a->is_linear_layer(l)) mla.push_back(l);
    EXPECT_FALSE(a->uses_rope(l)) << l;  // mla_use_nope
  }
  EXPECT_EQ(mla, (std::vector<std::int64_t>{3, 7, 11, 15, 19, 23, 26}));
  EXPECT_FALSE(a->is_moe_layer(0));
  EXPECT_TRUE(a->is_moe_layer(1));
  EXPECT_EQ(a->max_position_embeddings, 1048576);  // model_max_length
  EXPECT_EQ(parameter_count(*a), kParams);
  EXPECT_EQ(kParams, 49'122'681'728LL);
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  // The published safetensors index's total_size (total_size.txt beside the config).
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), kCheckpointBytes);
  EXPECT_EQ(kCheckpointBytes, 98'245'528'576LL);
}

TEST(KimiLinear, VllmPadsTheKdaStateToAnMlaPage) {
  // TP 1: a KDA state is the bfloat16 conv window (3 x 12,288) and a float32 recurrent state of
  // 32 x 128 x 128, 2,170,880 B; an MLA page holds 1,152 B a token, so blocks of 64 x
  // ceil(2,170,880 / (64 x 1,152)) = 1,920 tokens.
  const Ledger tp1 = family_ledger("vllm", kKimi, 1, "");
  ASSERT_TRUE(tp1.fits());
  EXPECT_EQ(ledger_fact(tp1, "weights_logical_bytes"), kCheckpointBytes + kConvWidening);
  EXPECT_EQ(ledger_fact(tp1, "kv_page_bytes"), 1920 * 1152);
  EXPECT_EQ(3 * 12288 * 2 + 32 * 128 * 128 * 4, 2'170'880);
  // 7 MLA layers and 20 KDA layers: groups of 7, the KDA layers in three.
  EXPECT_EQ(ledger_fact(tp1, "kv_layers_per_group"), 7);
  // The recurrent state stays float32 with --mamba-ssm-cache-dtype bfloat16.
  const Ledger bf16 = family_ledger("vllm", kKimi, 1, "    --mamba-ssm-cache-dtype: bfloat16\n");
  ASSERT_TRUE(bf16.fits());
  EXPECT_EQ(ledger_fact(bf16, "kv_page_bytes"), 1920 * 1152);
  // TP 2: 1,085,440 B of state, 960-token blocks on a Hopper (FlashMLA), 1,024 on a B200,
  // whose CUTLASS MLA aligns to 128.
  const Ledger tp2 = family_ledger("vllm", kKimi, 2, "");
  ASSERT_TRUE(tp2.fits());
  EXPECT_EQ(ledger_fact(tp2, "kv_page_bytes"), 960 * 1152);
  const Ledger b200 = family_ledger("vllm", kKimi, 2, "", "b200");
  ASSERT_TRUE(b200.fits());
  EXPECT_EQ(ledger_fact(b200, "kv_page_bytes"), 1024 * 1152);
}

// vllm issue #28228: Kimi-Linear-48B-A3B (an AWQ export) at TP 2 on two RTX 3090s, prefix
// caching, --max-model-len 120000, logs 2.30 GiB of KV cache, "GPU KV cache size: 75,840 tokens"
// and 2.48x. Its AWQ config is not at hand, so the BF16 architecture runs on two 80 GB A100s,
// whose Triton MLA aligns blocks to 64 tokens as the RTX 3090's does, with the KV memory pinned:
// 960-token blocks, 2.30 GiB // (7 x 1,105,920 B) = 319 blocks, logged by releases before
// 0.21.0 as 319 // 4 groups x 960 tokens.
TEST(KimiLinear, VllmIssue28228KvTokensFromThePinnedMemory) {
  const Ledger l = scenario_ledger(
      "hardware: {gpu: a100-80gb, count: 2}\nengine:\n  name: vllm\n  version: 0.11.1\n"
      "  args:\n    --tensor-parallel-size: 2\n    --max-model-len: 120000\n"
      "    --enable-prefix-caching: true\n    --max-num-batched-tokens: 64000\n"
      "    --max-num-seqs: 8\nmodel: " +
      public_config_dir(kKimi) + "\nobserved:\n  kv_cache_memory: 2.30GiB\n");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "kv_page_bytes"), 960 * 1152);
  EXPECT_EQ(ledger_fact(l, "kv_blocks"), 319);
  EXPECT_EQ(ledger_fact(l, "kv_tokens"), 75840);
}

TEST(KimiLinear, SglangKeepsOneStateSlotPerRequestInAnMlaPool) {
  const Ledger l = family_ledger("sglang", kKimi, 1, "    --max-running-requests: 16\n");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), kCheckpointBytes + kConvWidening + kAbsorbed);
  // 20 layers of a bfloat16 conv window (3 x 12,288) and a float32 state (32 x 128 x 128).
  EXPECT_EQ(ledger_fact(l, "mamba_cache_per_req_bytes"), 20 * (3 * 12288 * 2 + 32 * 128 * 128 * 4));
  EXPECT_EQ(ledger_fact(l, "kv_cell_bytes"), 7 * 576 * 2);
  // Radix cache is off for Kimi Linear, so the slots are --max-running-requests.
  EXPECT_EQ(ledger_fact(l, "max_mamba_cache_size"), 16);
}

TEST(KimiLinear, ReleasesWithoutItAreRefused) {
  EXPECT_EQ(family_errors("vllm", kKimi, "    --tensor-parallel-size: 2\n", 2, "0.11.0"),
            "f.yaml:4:12: KimiLinearForCausalLM is not served by vLLM 0.11.0 (from 0.11.1)\n");
  EXPECT_EQ(family_errors("vllm", kKimi, "    --tensor-parallel-size: 2\n", 2, "0.12.0"),
            "f.yaml:4:12: KimiLinearForCausalLM does not start on vLLM 0.12.0: its MLA layers "
            "fail to build (MLAModules has no indexer_rotary_emb; the vLLM recipe says to avoid "
            "0.12.0)\n");
  EXPECT_EQ(family_errors("sglang", kKimi, "    --tp-size: 2\n", 2, "0.5.4"),
            "f.yaml:4:12: KimiLinearForCausalLM is not served by SGLang 0.5.4 (from 0.5.5)\n");
}

TEST(KimiLinear, ImpossibleOrUnmodelledKeysAreRefusedAtTheirKey) {
  // kda_layers counts from 1: 0 and 28 name no layer of 27.
  for (const char* bad : {"0", "28"}) {
    const std::string dir =
        config_variant(kKimi, std::string("kimi-kda-") + bad, "\"kda_layers\": [\n      1,",
                       std::string("\"kda_layers\": [\n      ") + bad + ",");
    EXPECT_EQ(config_dir_errors(dir), dir + "/config.json:31:19: 'kda_layers' names layer " + bad +
                                          "; they are counted from 1 to 'num_hidden_layers' 27\n");
  }
  const std::string mtp = config_variant(kKimi, "kimi-mtp", "\"num_nextn_predict_layers\": 0",
                                         "\"num_nextn_predict_layers\": 1");
  EXPECT_EQ(config_dir_errors(mtp),
            mtp +
                "/config.json:69:31: Kimi Linear's MTP layers ('num_nextn_predict_layers') are "
                "not modelled\n");
}

TEST(KimiLinear, MlaWithRopeIsRefused) {
  const std::string dir =
      config_variant(kKimi, "kimi-rope", "\"mla_use_nope\": true", "\"mla_use_nope\": false");
  EXPECT_EQ(config_dir_errors(dir),
            dir +
                "/config.json:56:19: Kimi Linear's MLA layers with RoPE ('mla_use_nope' false) "
                "are not served: vLLM's kimi_linear.py asserts mla_use_nope\n");
}

}  // namespace
}  // namespace gpumem
