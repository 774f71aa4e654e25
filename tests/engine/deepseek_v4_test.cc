// DeepSeek-V4 in vLLM (from v0.20.0): the packed KV-cache layout (deepseek_v4_kv.h), one rank's
// weights, and the launches vLLM refuses. Every expected figure is derived here from the
// published Flash config: 43 layers (ratios 0, 0, then 4 and 128 alternating), hidden 4096,
// 64 heads of a 512-wide latent (448 + 64 RoPE), q_lora 1024, 8 output groups of 1024, 256
// MXFP4 experts of 2048, a 128-token window, an indexer of 64 heads of 128.
#include <gtest/gtest.h>

#include <string>

#include "engine/vllm/deepseek_v4_kv.h"
#include "engine/vllm/version.h"
#include "support/family_simulation.h"
#include "support/model_configs.h"

namespace gpumem {
namespace {

const std::string kFlash = "deepseek-ai--DeepSeek-V4-Flash";

Architecture flash() {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kFlash) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

constexpr std::int64_t aligned(std::int64_t b) { return (b + 575) / 576 * 576; }
// A stored latent: 448 fp8 values, 64 bfloat16 RoPE values, 7 scales, a pad byte.
constexpr std::int64_t kLatent = 448 + 64 * 2 + 448 / 64 + 1;
constexpr std::int64_t kWindowPage = aligned(64 * kLatent);  // also a ratio-4 page of 64
constexpr std::int64_t kRatio128Page = aligned(256 / 128 * kLatent);
constexpr std::int64_t kIndexerPage = aligned(64 * (128 + 4));
// 22 layer tuples: the window group's 43 layers split in two; every slot of a block id counts.
constexpr std::int64_t kBlockBytes = 22 * (kWindowPage + kIndexerPage + kRatio128Page);

TEST(DeepseekV4Vllm, FlashPacksFiveCacheGroupsIntoOnePoolOfBlockIds) {
  EXPECT_EQ(kLatent, 584);
  EXPECT_EQ(kBlockBytes, 1'051'776);
  Result<vllm::KvCacheLayout> kv = vllm::deepseek_v4_kv_layout(flash(), LayerRange{0, 43});
  ASSERT_TRUE(kv.ok()) << kv.status().message();
  EXPECT_EQ(kv->block_bytes.value(), kBlockBytes);
  EXPECT_EQ(kv->group_size, 22);
  EXPECT_EQ(kv->min_block_size, 4);
  ASSERT_EQ(kv->groups.size(), 5u);
  // The compressed group (21 ratio-4 latents and indexers, 20 ratio-128 latents), the two
  // window groups, the ratio-4 states (float32 8,192- and 2,048-byte rows, 4 a block, padded to
  // the full pages), the ratio-128 states (4,096-byte rows, 8 a block).
  EXPECT_EQ(aligned(4 * 2 * 2 * 512 * 4), 32'832);
  const std::int64_t packed[] = {21 * kWindowPage + 21 * kIndexerPage + 20 * kRatio128Page,
                                 22 * kWindowPage, 21 * kWindowPage,
                                 21 * kWindowPage + 21 * kIndexerPage, 20 * kWindowPage};
  const std::int64_t block[] = {256, 64, 64, 4, 8};
  for (size_t g = 0; g < 5; ++g) {
    EXPECT_EQ(kv->groups[g].packed_page.value(), packed[g]) << g;
    EXPECT_EQ(kv->groups[g].spec.block_size, block[g]) << g;
  }
  EXPECT_EQ(kv->groups[1].layers.front(), 0);
  EXPECT_EQ(kv->groups[1].layers.back(), 42);
  EXPECT_EQ(kv->groups[2].layers.front(), 1);
  EXPECT_EQ(kv->tensor_pages.size(), 66u);
}

// vllm issue #44376 (2 GH200, max_model_len 30,000, 16,384 batched tokens): "6.66 GiB KV cache
// is needed ... available KV cache memory (5.44 GiB) ... estimated maximum model length is
// 13528". One request holds cdiv(30000, 256) compressed blocks, 2 x (cdiv(16511, 64) + 1)
// window blocks, cdiv(16391, 4) + 1 and cdiv(16511, 8) + 1 state blocks.
TEST(DeepseekV4Vllm, OneRequestNeedsWhatAGh200StartUpReported) {
  Result<vllm::KvCacheLayout> kv = vllm::deepseek_v4_kv_layout(flash(), LayerRange{0, 43});
  ASSERT_TRUE(kv.ok());
  const std::int64_t blocks = 118 + 2 * 259 + 4099 + 2065;
  EXPECT_EQ(blocks, 6800);
  EXPECT_EQ(vllm::max_memory_per_request(*kv, 30000, 16384).value(), blocks * kBlockBytes);
  EXPECT_EQ(vllm::format_gib(vllm::max_memory_per_request(*kv, 30000, 16384)), "6.66");
  // 13,528 tokens need 5,554 block ids, 13,529 one more: what lies between prints 5.44 GiB.
  const Bytes available = bytes(5554 * kBlockBytes + kBlockBytes / 2);
  const std::string error = vllm::not_enough_kv_cache_error(
      available, *kv, 30000, 16384, vllm::rules_for(vllm::Version{0, 21, 0, 0}));
  const std::string logged =
      "ValueError: To serve at least one request with the model's max seq len (30000), (6.66 "
      "GiB KV cache is needed, which is larger than the available KV cache memory (5.44 GiB). "
      "Based on the available memory, the estimated maximum model length is 13528. Try "
      "increasing `gpu_memory_utilization`";
  EXPECT_EQ(error.substr(0, logged.size()), logged);
}

TEST(DeepseekV4Vllm, TokensCountEveryGroupsBlocksOfOneRequest) {
  const Ledger l = scenario_ledger(
      "hardware: {gpu: h200-nvl, count: 2}\nengine:\n  name: vllm\n  version: 0.21.0\n  args:\n"
      "    --tensor-parallel-size: 2\n    --max-model-len: 131072\n"
      "    --gpu-memory-utilization: 0.78\n    --kv-cache-dtype: fp8\n    --enforce-eager: true\n"
      "model: " +
      public_config_dir(kFlash) + "\n");
  ASSERT_TRUE(l.fits());
  const std::int64_t blocks = ledger_fact(l, "kv_blocks");
  EXPECT_EQ(blocks, ledger_fact(l, "kv_bytes") / kBlockBytes);
  // 0.21.0 logs int(concurrency x max_model_len); one request of 131,072 tokens (8,192 batched)
  // holds 512 compressed, 2 x 131 window, 2,051 and 1,041 state blocks, each at its group's
  // packed page, in blocks of the compressed group's page.
  const std::int64_t per_request =
      512LL * 1'002'240 + 131 * 823'680 + 131 * 786'240 + 2051 * 967'680 + 1041 * 748'800;
  const std::int64_t request_blocks = (per_request + 1'002'240 - 1) / 1'002'240;
  EXPECT_EQ(request_blocks, 3481);
  EXPECT_EQ(ledger_fact(l, "kv_tokens"),
            static_cast<std::int64_t>(static_cast<double>(blocks) / 3481.0 * 131072.0));
  // Sparse indexer workspace: 40 x 131,072 / 4 prefill keys of 128 fp8 values and a float32
  // scale, and the radix top-k's 1 MiB (above the attention gather's 4 x 41,088 x 512 x 2).
  EXPECT_EQ(ledger_fact(l, "dsa_workspace_bytes"), 1'310'720LL * 132 + (1 << 20));
  // The MTP streams (8,192 x 4 x 4,096 bfloat16) and the top-k indices (8,192 x 512 int32).
  EXPECT_EQ(ledger_fact(l, "mtp_hidden_buffer_bytes"), 8192LL * 4 * 4096 * 2);
  EXPECT_EQ(ledger_fact(l, "dsa_topk_indices_bytes"), 8192LL * 512 * 4);
}

// One TP-2 rank's tensors (vllm models/deepseek_v4.py), each a byte a value for FP8 plus a
// float32 scale per 128 x 128 block, MXFP4 experts at half a byte a value and a byte per 32.
TEST(DeepseekV4Vllm, OneTp2RanksWeightsFollowTheConfig) {
  const auto fp8 = [](std::int64_t out, std::int64_t in) {
    return out * in + ((out + 127) / 128) * ((in + 127) / 128) * 4;
  };
  const std::int64_t h = 4096;
  const std::int64_t attention = 64 * 4 + fp8(1024 + 512, h) + 1024 * 2 + fp8(32 * 512, 1024) +
                                 512 * 2 + fp8(4 * 1024, 64 * 512 / 8) + fp8(h, 4 * 1024);
  const std::int64_t ratio4 = fp8(64 * 128, 1024) + 64 * h * 2 + 2 * 128 * 2 +
                              (4 * 256 * 4 + 512 * h * 2 + 128 * 2) +
                              (4 * 1024 * 4 + 2048 * h * 2 + 512 * 2);
  const std::int64_t ratio128 = 128 * 512 * 4 + 1024 * h * 2 + 512 * 2;
  const std::int64_t experts = 256 * (2 * 1024 * 2048 + 2 * 1024 * 128 + h * 512 + h * 32);
  const std::int64_t moe = 256 * h * 2 + fp8(2 * 1024, h) + fp8(h, 1024) + experts + 132 * 4 * 4;
  const std::int64_t rest = 2 * h * 2 + 2 * 24 * 4 * h * 4 + 2 * 24 * 4 + 2 * 3 * 4;
  std::int64_t total = 2 * 64640 * h * 2 + h * 2 + 4 * 4 * h * 4 + 4 * 4 + 4;
  total += 2 * 1'048'576LL * 64 * 4;  // float32 RoPE tables of the bases 10,000 and 160,000
  for (int i = 0; i < 43; ++i) {
    const int ratio = i < 2 ? 0 : i % 2 == 0 ? 4 : 128;
    total += attention + moe + rest + (ratio == 4 ? ratio4 : ratio == 128 ? ratio128 : 0);
    total += i < 3 ? 129280LL * 6 * 4 : 256 * 4;  // tid2eid or the router bias
  }
  const Ledger l = family_ledger("vllm", kFlash, 2, "    --kv-cache-dtype: fp8\n", "h200-nvl");
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), total);
  // A public vLLM 0.23.0 start-up of this layout on 2 H200 NVL logged "Model loading took 74.08
  // GiB"; the allocator's rounding of these tensors gives 74.05 GiB.
  EXPECT_NEAR(static_cast<double>(ledger_fact(l, "weights_bytes")) / (1 << 30), 74.08, 0.05);
}

TEST(DeepseekV4Vllm, LaunchesVllmRefusesOrGpumemDoesNotModelAreNamed) {
  const std::string model = public_config_dir(kFlash);
  EXPECT_EQ(family_errors("vllm", kFlash, "    --tensor-parallel-size: 2\n", 2),
            "f.yaml:7:8: AssertionError: DeepseekV4 only supports fp8 kv-cache format for now, "
            "got auto (vLLM stops while building the model; pass --kv-cache-dtype fp8)\n");
  EXPECT_EQ(family_errors("vllm", kFlash, "    --tensor-parallel-size: 2\n", 2, "0.19.0"),
            "f.yaml:7:8: " + model +
                " (DeepseekV4ForCausalLM): DeepseekV4ForCausalLM is not served by vLLM 0.19.0 "
                "(from 0.20.0)\n");
  EXPECT_EQ(
      family_errors("vllm", kFlash, "    --tensor-parallel-size: 2\n    --kv-cache-dtype: fp8\n", 2,
                    "", "b200"),
      "f.yaml:8:8: " + model +
          " (DeepseekV4ForCausalLM): vLLM's DeepSeek-V4 is modelled on Hopper (compute "
          "capability 9.x, MXFP4 experts on Marlin); b200 is 10.0\n");
  EXPECT_EQ(family_errors("sglang", kFlash, "    --tp-size: 2\n", 2, "0.5.12"),
            "f.yaml:7:8: " + model +
                " (DeepseekV4ForCausalLM): SGLang's DeepSeek-V4 pools (a sliding-window pool, "
                "compressed and indexer pools and compressor-state rings sized from one budget) "
                "are not modelled\n");
}

}  // namespace
}  // namespace gpumem
