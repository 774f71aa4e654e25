// GLM-4-0414 (Glm4ForCausalLM) from its published config in both engines: Llama's layout with
// four RMSNorms per layer, half of each head rotated, and q/k/v biases that SGLang builds whatever
// the config says while vLLM follows attention_bias; every expected value derived here from the
// config.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kGlm4 = "zai-org--GLM-4-32B-0414";

constexpr std::int64_t kHidden = 6144;
constexpr std::int64_t kLayers = 61;
constexpr std::int64_t kVocab = 151552;  // 64 x 2368: no padding
constexpr std::int64_t kWidth = 23040;

// One rank of `tp`: embedding and untied head (vocab / tp rows each); per layer q of 48 / tp
// heads and one KV head each for k and v (2 KV heads: replicated past TP 2) of 128, o_proj, the
// gated MLP over 23040 / tp, four norms, and `qkv_bias` biases on q/k/v; the final norm.
constexpr std::int64_t rank_params(std::int64_t tp, bool qkv_bias) {
  const std::int64_t qkv_rows = (48 / tp + 2 * (tp >= 2 ? 1 : 2)) * 128;
  const std::int64_t layer = qkv_rows * kHidden + (qkv_bias ? qkv_rows : 0) +
                             kHidden * (48 / tp * 128) + 3 * kHidden * (kWidth / tp) + 4 * kHidden;
  return 2 * (kVocab / tp) * kHidden + kLayers * layer + kHidden;
}

// partial_rotary_factor 0.5 of head_dim 128: a cos_sin_cache of max_position_embeddings
// (32,768) rows of 64, float32 in SGLang, bfloat16 in vLLM.
constexpr std::int64_t kRopeElements = 32768LL * 64;

TEST(Glm4, ParameterCountFollowsTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kGlm4) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kGlm4);
  EXPECT_EQ(a->rotary_dim, 64);
  EXPECT_EQ(parameter_count(*a), rank_params(1, false));
  // llama.cpp's load log of GLM-Z1-32B-0414 (same shape) prints 32.566 B parameters.
  EXPECT_EQ(parameter_count(*a), 32'566'081'536LL);
  // HF Glm4ForCausalLM's names: a fused gate_up_proj and the GLM norm names.
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 2 * rank_params(1, false));
  const auto named = [&](const std::string& name) {
    for (const CheckpointTensor& t : *tensors) {
      if (t.name == name) return true;
    }
    return false;
  };
  EXPECT_TRUE(named("model.layers.60.mlp.gate_up_proj.weight"));
  EXPECT_TRUE(named("model.layers.0.post_mlp_layernorm.weight"));
  EXPECT_FALSE(named("model.layers.0.self_attn.q_proj.bias"));
}

TEST(Glm4, SglangBiasesQkvWhateverTheConfigSaysVllmDoesNot) {
  const Ledger sglang = family_ledger("sglang", kGlm4, 2, "");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"),
            2 * rank_params(2, true) + kRopeElements * 4);
  EXPECT_EQ(2 * rank_params(2, true) + kRopeElements * 4, 32'576'381'440LL);
  // One KV head of 128 per rank in each of the 61 layers, bfloat16.
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), kLayers * 2 * 128 * 2);

  const Ledger vllm = family_ledger("vllm", kGlm4, 2, "");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"),
            2 * rank_params(2, false) + kRopeElements * 2);
}

}  // namespace
}  // namespace gpumem
