// Phi-3.5-MoE (PhiMoEForCausalLM) from its published config in both engines: Mixtral's 16
// experts behind a replicated gate, biased attention projections and head, LayerNorms with
// biases, the LongRoPE caches, each engine's default context, and what each refuses; every
// expected value derived here from the config.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kPhiMoe = "microsoft--Phi-3.5-MoE-instruct";

constexpr std::int64_t kHidden = 4096;
constexpr std::int64_t kLayers = 32;
constexpr std::int64_t kHeads = 32;
constexpr std::int64_t kKvHeads = 8;
constexpr std::int64_t kHeadDim = 128;
constexpr std::int64_t kExperts = 16;
constexpr std::int64_t kExpertWidth = 6400;
constexpr std::int64_t kVocab = 32064;  // 64 x 501: no padding

// Parameters one rank of `tp` holds: the embedding and the untied, biased head (vocab / tp rows
// each); per layer qkv_proj and o_proj with biases (o_proj's whole on every rank), the
// replicated gate [experts, hidden], w13 and w2 of every expert over 6400 / tp columns, and two
// LayerNorms (weight and bias); the final LayerNorm.
constexpr std::int64_t rank_params(std::int64_t tp) {
  const std::int64_t qkv_rows = (kHeads + 2 * kKvHeads) / tp * kHeadDim;
  const std::int64_t attention =
      qkv_rows * kHidden + qkv_rows + kHidden * (kHeads / tp * kHeadDim) + kHidden;
  const std::int64_t moe = kExperts * kHidden + kExperts * 3 * kHidden * (kExpertWidth / tp);
  const std::int64_t layer = attention + moe + 2 * 2 * kHidden;
  return 2 * (kVocab / tp) * kHidden + kVocab / tp + kLayers * layer + 2 * kHidden;
}

// Phi3LongRoPEScaledRotaryEmbedding, one module shared by every layer: the short cache of
// original_max_position_embeddings (4,096) rows, the long one of max_position_embeddings
// (131,072) rows and their concatenation, each of rotary_dim 128 columns in bfloat16.
constexpr std::int64_t kRopeBytes = (4096 + 131072 + (4096 + 131072)) * 128 * 2;

TEST(PhiMoe, ParameterCountFollowsTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kPhiMoe) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kPhiMoe);
  EXPECT_EQ(parameter_count(*a), rank_params(1));
  // The model card's "41.9B parameters"; no safetensors total_size was found (SOURCE.md).
  EXPECT_EQ(parameter_count(*a), 41'873'153'344LL);
  // The checkpoint as HF PhimoeForCausalLM names it, every tensor bfloat16: the LayerNorms'
  // biases and lm_head.bias among them.
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 2 * rank_params(1));
  const auto named = [&](const std::string& name) {
    for (const CheckpointTensor& t : *tensors) {
      if (t.name == name) return true;
    }
    return false;
  };
  EXPECT_TRUE(named("lm_head.bias"));
  EXPECT_TRUE(named("model.layers.0.post_attention_layernorm.bias"));
  EXPECT_TRUE(named("model.layers.31.block_sparse_moe.experts.15.w3.weight"));
}

TEST(PhiMoe, SglangAndVllmBuildTheSameShardsAtTp2) {
  const Ledger sglang = family_ledger("sglang", kPhiMoe, 2, "");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), 2 * rank_params(2) + kRopeBytes);
  EXPECT_EQ(2 * rank_params(2) + kRopeBytes, 41'945'120'064LL);
  // Every layer's K and V, 4 of the 8 KV heads per rank, bfloat16.
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), kLayers * 2 * 4 * kHeadDim * 2);
  // sglang hf_transformers_utils.py get_context_length: a longrope scaling has no factor, so
  // max_position_embeddings.
  ASSERT_NE(sglang.fact("context_len"), nullptr);
  EXPECT_EQ(std::get<std::int64_t>(sglang.fact("context_len")->value), 131072);

  const Ledger vllm = family_ledger("vllm", kPhiMoe, 2, "");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), 2 * rank_params(2) + kRopeBytes);
  // vllm config/model.py (PR #27431, 0.11.1): LongRoPE defaults max_model_len to
  // original_max_position_embeddings.
  ASSERT_NE(vllm.fact("max_model_len"), nullptr);
  EXPECT_EQ(std::get<std::int64_t>(vllm.fact("max_model_len")->value), 4096);
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), 16 * 2 * 4 * kHeadDim * 2);
}

TEST(PhiMoe, SglangServesItFrom0410) {
  EXPECT_EQ(family_errors("sglang", kPhiMoe, "    --tp-size: 2\n", 2, "0.4.9.post1"),
            "f.yaml:4:12: PhiMoEForCausalLM is not served by SGLang 0.4.9.post1 (from 0.4.10)\n");
  const Ledger l = family_ledger("sglang", kPhiMoe, 2, "", "h200", "0.4.10");
  EXPECT_TRUE(l.fits());
}

std::string phimoe_variant(const std::string& name, const std::string& from,
                           const std::string& to) {
  return config_variant(kPhiMoe, "phimoe-" + name, from, to);
}

// Where SGLang's phimoe.py follows the config and vLLM's hard-codes (biased attention, an
// untied head), or vLLM windows and SGLang does not, the config is refused at its key.
TEST(PhiMoe, ConfigsTheEnginesWouldBuildDifferentlyAreRefused) {
  const std::pair<std::string, std::string> cases[] = {
      {phimoe_variant("nobias", "\"attention_bias\": true", "\"attention_bias\": false"),
       ":5:21: a Phi-3.5-MoE config without 'attention_bias' true is not modelled: SGLang's "
       "phimoe.py then builds q/k/v and o_proj without biases, vLLM's with them\n"},
      {phimoe_variant("tied", "\"tie_word_embeddings\": false", "\"tie_word_embeddings\": true"),
       ":49:26: 'tie_word_embeddings' true is not modelled for Phi-3.5-MoE: SGLang's phimoe.py "
       "then reuses the embedding as the head, vLLM's never does\n"},
      {phimoe_variant("window", "\"sliding_window\": 131072", "\"sliding_window\": 4096"),
       ":48:21: 'sliding_window' 4096 below 'max_position_embeddings' is not modelled for "
       "Phi-3.5-MoE: vLLM's phimoe.py windows every layer, SGLang's none\n"},
  };
  for (const auto& [dir, message] : cases) {
    EXPECT_EQ(config_dir_errors(dir), dir + "/config.json" + message);
  }
  // A null window is no window (transformers PhimoeConfig's default).
  const std::string null_window =
      phimoe_variant("null", "\"sliding_window\": 131072", "\"sliding_window\": null");
  Diagnostics diags;
  EXPECT_TRUE(load_hf_config(null_window + "/config.json", diags).ok()) << diags.to_string();
}

}  // namespace
}  // namespace gpumem
