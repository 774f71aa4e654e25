// Cohere's Command models from their configs in both engines (commandr.py): attention and the
// MLP side by side after one weight-only LayerNorm, no biases, tied embeddings; Command R+ adds a
// LayerNorm weight per head of q and k (use_qk_norm); Command R7B (Cohere2ForCausalLM) slides on
// three layers in four, which vLLM's KV cache windows and SGLang's full pool does not. Every
// expected value is derived here from the configs.
#include <gtest/gtest.h>

#include <string>

#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kCommandR = "CohereForAI--c4ai-command-r-08-2024";
const std::string kCommandRPlus = "CohereForAI--c4ai-command-r-plus-08-2024";
const std::string kCommandR7b = "CohereForAI--c4ai-command-r7b-12-2024";
const std::string kCommandRV01 = "CohereForAI--c4ai-command-r-v01";

// One decoder layer: q and o of heads x 128, k and v of KV heads x 128, gate, up and down, the
// input LayerNorm, and with use_qk_norm a weight per head of q and of k.
constexpr std::int64_t cohere_layer(std::int64_t h, std::int64_t heads, std::int64_t kv_heads,
                                    std::int64_t mlp, bool qk_norm) {
  return 2 * h * heads * 128 + 2 * h * kv_heads * 128 + 3 * h * mlp + h +
         (qk_norm ? (heads + kv_heads) * 128 : 0);
}

// The tied embedding of 256,000 rows, the layers and the final norm.
constexpr std::int64_t cohere_params(std::int64_t h, std::int64_t layers, std::int64_t per_layer) {
  return 256000 * h + layers * per_layer + h;
}

constexpr std::int64_t kCommandRParams =
    cohere_params(8192, 40, cohere_layer(8192, 64, 8, 24576, false));
constexpr std::int64_t kCommandRPlusLayer = cohere_layer(12288, 96, 8, 33792, true);
constexpr std::int64_t kCommandR7bParams =
    cohere_params(4096, 32, cohere_layer(4096, 32, 8, 14336, false));

Architecture load(const std::string& repo) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

std::int64_t checkpoint_size(const Architecture& a) {
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(a);
  EXPECT_TRUE(tensors.ok());
  return tensors.ok() ? checkpoint_bytes(*tensors).value() : -1;
}

TEST(Cohere, CheckpointsFollowTheConfig) {
  const Architecture r = load(kCommandR);
  EXPECT_EQ(r.family, ArchitectureFamily::kCohere);
  EXPECT_TRUE(r.tie_word_embeddings);
  EXPECT_EQ(parameter_count(r), kCommandRParams);
  EXPECT_EQ(kCommandRParams, 32'296'476'672LL);
  EXPECT_EQ(checkpoint_size(r), 2 * kCommandRParams);
  EXPECT_EQ(checkpoint_size(load(kCommandR7b)), 2 * kCommandR7bParams);
  // nitky/Megac4ai-command-r-plus, Command R+'s layers 100 times over, publishes total_size
  // 320,869,400,576 (SOURCE.md).
  Architecture plus = load(kCommandRPlus);
  EXPECT_EQ(checkpoint_size(plus), 2 * cohere_params(12288, 64, kCommandRPlusLayer));
  plus.num_hidden_layers = 100;
  plus.layer_types.assign(100, LayerAttention::kFull);
  EXPECT_EQ(checkpoint_size(plus), 320'869'400'576LL);
  EXPECT_EQ(2 * cohere_params(12288, 100, kCommandRPlusLayer), 320'869'400'576LL);
}

TEST(Cohere, BothEnginesBuildTheSameLayers) {
  // One RoPE cache of 131,072 x 128 beside the float16 parameters: float32 in SGLang, the model
  // dtype in vLLM.
  const std::pair<const char*, std::int64_t> engines[] = {{"sglang", 131072 * 128 * 4},
                                                          {"vllm", 131072 * 128 * 2}};
  for (const auto& [engine, rope] : engines) {
    SCOPED_TRACE(engine);
    const Ledger l = family_ledger(engine, kCommandR, 1, "");
    ASSERT_TRUE(l.fits());
    EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), 2 * kCommandRParams + rope);
  }
  // Command R+ at TP 8: each rank holds 32,000 embedding rows, and per layer q/k/v of 12 + 2 x 1
  // heads, o_proj's 12 heads, an eighth of the MLP, the whole input norm and its 12 query heads'
  // and one KV head's norm rows; the final norm; the bfloat16 RoPE cache of 131,072 x 128.
  const std::int64_t rank_layer =
      (12 + 2) * 128 * 12288 + 12288 * 12 * 128 + 3 * (33792 / 8) * 12288 + 12288 + 12 * 128 + 128;
  const Ledger plus = family_ledger("vllm", kCommandRPlus, 8, "    --max-model-len: 8192\n");
  EXPECT_EQ(ledger_fact(plus, "weights_logical_bytes"),
            2 * (32000 * 12288 + 64 * rank_layer + 12288) + 131072 * 128 * 2);
}

TEST(Cohere, Command7bSlidesThreeLayersInFour) {
  const Architecture a = load(kCommandR7b);
  EXPECT_TRUE(a.is_sliding_layer(0));
  EXPECT_FALSE(a.is_sliding_layer(3));
  EXPECT_FALSE(a.is_sliding_layer(31));
  EXPECT_EQ(a.sliding_window, 4096);
  // SGLang keeps one full pool: 32 layers of 8 KV heads of 128, K and V, 2 bytes.
  const Ledger sglang = family_ledger("sglang", kCommandR7b, 1, "");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), 32 * 2 * 8 * 128 * 2);
  // vLLM pages each layer's 16 tokens (65,536 B) and groups the 24 sliding and 8 full layers in
  // fours of 8.
  const Ledger vllm = family_ledger("vllm", kCommandR7b, 1, "");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), 16 * 2 * 8 * 128 * 2);
  EXPECT_EQ(ledger_fact(vllm, "kv_layers_per_group"), 8);
}

TEST(Cohere, WhatTheEnginesReadDifferentlyIsRefused) {
  // Command R v01: SGLang's context is model_max_length, vLLM's the smaller key.
  const std::string v01 = public_config_dir(kCommandRV01);
  EXPECT_NE(config_dir_errors(v01).find("'model_max_length' 131072 beside max_position_embeddings "
                                        "8192 is not modelled for CohereForCausalLM: SGLang's "
                                        "context is model_max_length, vLLM's the smaller of the "
                                        "two\n"),
            std::string::npos);
  // More ranks than Command R+'s 8 KV heads: commandr.py cannot load k_norm.
  EXPECT_NE(family_errors("vllm", kCommandRPlus, "    --tensor-parallel-size: 16\n", 16)
                .find("--tensor-parallel size 16 above CohereForCausalLM's 8 KV heads with "
                      "use_qk_norm: commandr.py cannot load k_norm"),
            std::string::npos);
  EXPECT_NE(family_errors("sglang", kCommandR, "    --tp-size: 1\n    --pp-size: 2\n", 2)
                .find("pipeline parallelism is not modelled for CohereForCausalLM"),
            std::string::npos);
}

}  // namespace
}  // namespace gpumem
