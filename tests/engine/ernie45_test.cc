// ERNIE 4.5 from its configs in both engines: the dense 0.3B (Llama's layout with a head_dim
// of its own, tied embeddings) and the 21B-A3B MoE (layer 0 dense, layers 1-27 with 64 routed
// experts of width 1536, two shared experts as one MLP of 3072, a router and score-correction
// bias that vLLM keeps in float32 and SGLang in the model dtype). Expected values are derived
// here from the configs; the 21B's parameter count and checkpoint bytes are its published ones.
#include <gtest/gtest.h>

#include <string>

#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kDense = "baidu--ERNIE-4.5-0.3B-PT";
const std::string kMoe = "baidu--ERNIE-4.5-21B-A3B-PT";

constexpr std::int64_t kH = 2560;
constexpr std::int64_t kLayers = 28;
constexpr std::int64_t kExperts = 64;
constexpr std::int64_t kVocab = 103424;

// The 21B's parameters: tied embedding; per layer q (20 x 128), k and v (4 x 128), o, two
// norms; layer 0's MLP of 12288; 27 MoE layers of 64 experts of 1536, shared experts of 3072,
// router [64, 2560] and bias [1, 64]; the final norm.
constexpr std::int64_t kAttention = kH * 2560 + 2 * kH * 512 + 2560 * kH + 2 * kH;
constexpr std::int64_t kRouter = kExperts * kH + kExperts;
constexpr std::int64_t kMoeLayer = kExperts * 3 * kH * 1536 + 3 * kH * 3072 + kRouter;
constexpr std::int64_t kParams =
    kVocab * kH + kLayers * kAttention + 3 * kH * 12288 + 27 * kMoeLayer + kH;

Architecture config(const std::string& folder) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(folder) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

TEST(Ernie45, TheMoeConfigDerivesItsPublishedSize) {
  const Architecture a = config(kMoe);
  EXPECT_EQ(a.family, ArchitectureFamily::kErnie45);
  EXPECT_FALSE(a.is_moe_layer(0));
  EXPECT_TRUE(a.is_moe_layer(1));
  EXPECT_TRUE(a.is_moe_layer(27));
  EXPECT_EQ(parameter_count(a), kParams);
  // The Hugging Face listing of ERNIE-4.5-21B-A3B (SOURCE.md): 21,825,437,888 parameters,
  // 4,425,408 of them (27 routers with their biases) float32.
  EXPECT_EQ(kParams, 21'825'437'888LL);
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 2 * (kParams - 27 * kRouter) + 4 * 27 * kRouter);
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 43'659'726'592LL);
}

TEST(Ernie45, EachEngineKeepsTheRouterInItsOwnDtype) {
  // Beside the parameters, one RoPE cache of 131,072 x 128: float32 in SGLang, bfloat16 in
  // vLLM. vLLM's router and bias are float32 (4 bytes where SGLang keeps 2).
  const Ledger sglang = family_ledger("sglang", kMoe, 1, "");
  const Ledger vllm = family_ledger("vllm", kMoe, 1, "");
  ASSERT_TRUE(sglang.fits());
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), 2 * kParams + 131072 * 128 * 4);
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"),
            2 * kParams + 2 * 27 * kRouter + 131072 * 128 * 2);
  // Every layer's K and V: 4 KV heads of 128, bfloat16.
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), kLayers * 2 * 4 * 128 * 2);
}

TEST(Ernie45, TheDenseFormIsLlamasWithItsOwnHeadDim) {
  const Architecture a = config(kDense);
  EXPECT_EQ(a.family, ArchitectureFamily::kErnie45);
  EXPECT_EQ(a.head_dim, 128);  // not 1024 / 16
  EXPECT_EQ(a.moe.num_experts, 0);
  // Tied embedding; 18 layers of q (16 x 128), k and v (2 x 128), o, an MLP of 3072, two norms.
  const std::int64_t layer =
      1024 * 2048 + 2 * 1024 * 256 + 2048 * 1024 + 3 * 1024 * 3072 + 2 * 1024;
  EXPECT_EQ(parameter_count(a), 103424 * 1024 + 18 * layer + 1024);
  EXPECT_EQ(parameter_count(a), 360'748'032LL);
  for (const char* engine : {"sglang", "vllm"}) {
    SCOPED_TRACE(engine);
    EXPECT_TRUE(family_ledger(engine, kDense, 1, "").fits());
  }
  // SGLang's ernie4.py builds every layer on every pipeline stage.
  EXPECT_EQ(family_errors("sglang", kDense, "    --pp-size: 2\n", 2),
            "f.yaml:6:16: --pp-size above 1 is not modelled for Ernie4_5_ForCausalLM: SGLang's "
            "ernie4.py builds every layer on every pipeline stage\n");
}

TEST(Ernie45, ConfigsTheEnginesWouldBuildDifferentlyAreRefused) {
  const std::string biased =
      config_variant(kDense, "ernie-bias", "\"use_bias\": false", "\"use_bias\": true");
  EXPECT_EQ(config_dir_errors(biased),
            biased +
                "/config.json:26:15: 'use_bias' true is not modelled for ERNIE 4.5: SGLang's "
                "ernie4.py then biases q/k/v and o_proj, vLLM's ernie45_moe.py not o_proj\n");
  // Hostile values are refused at their key, not read as a layout.
  const std::string negative = config_variant(
      kMoe, "ernie-negative", "\"moe_num_shared_experts\": 2", "\"moe_num_shared_experts\": -2");
  EXPECT_EQ(config_dir_errors(negative),
            negative + "/config.json:24:29: 'moe_num_shared_experts' must be from 0 to 64\n");
  const std::string past = config_variant(kMoe, "ernie-past", "\"moe_layer_start_index\": 1",
                                          "\"moe_layer_start_index\": 99999999999");
  EXPECT_EQ(config_dir_errors(past),
            past + "/config.json:27:28: 'moe_layer_start_index' must name a layer (0 to 27)\n");
  const std::string every_other = config_variant(
      kMoe, "ernie-interval", "\"moe_layer_interval\": 1", "\"moe_layer_interval\": 2");
  EXPECT_EQ(config_dir_errors(every_other),
            every_other +
                "/config.json:29:25: 'moe_layer_interval' 2 is not modelled: SGLang's ernie4.py "
                "counts it from moe_layer_start_index, vLLM's ernie45_moe.py from layer 0\n");
}

}  // namespace
}  // namespace gpumem
