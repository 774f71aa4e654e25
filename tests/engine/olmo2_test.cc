// OLMo 2 (Olmo2ForCausalLM) from its published config in both engines: Llama's projections
// and MLP, q_norm over the whole query projection and k_norm over the whole KV projection,
// each whole on every TP rank (sglang and vllm olmo2.py all-gather q and k to normalize
// them), and no input norm: one norm after attention, one after the MLP. Every expected
// value is derived here from the config (4096 hidden, 32 layers of 32 heads, MLP 11008,
// vocabulary 100352, untied head).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "catalog/parameter_count.h"
#include "engine/vllm/activation_model.h"
#include "support/family_simulation.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kOlmo2 = "allenai--OLMo-2-1124-7B";

constexpr std::int64_t kHidden = 4096;
constexpr std::int64_t kLayers = 32;
constexpr std::int64_t kHeadDim = 128;
constexpr std::int64_t kMlp = 11008;
constexpr std::int64_t kVocab = 100352;  // 64 x 1568: no padding at TP 1 or 2

// Parameters one rank of `tp` holds with `kv_heads` KV heads: embedding and head (vocab / tp
// rows each), per layer q/k/v/o and the MLP split tp ways, q_norm (4096) and k_norm
// (kv_heads x 128) whole, two norms; the final norm.
constexpr std::int64_t rank_params(std::int64_t tp, std::int64_t kv_heads) {
  const std::int64_t kv = kv_heads * kHeadDim;
  const std::int64_t attention = (kHidden + 2 * kv) / tp * kHidden + kHidden / tp * kHidden;
  const std::int64_t layer = attention + 3 * kHidden * (kMlp / tp) + kHidden + kv + 2 * kHidden;
  return 2 * (kVocab / tp) * kHidden + kLayers * layer + kHidden;
}

TEST(Olmo2, ParameterCountAndCheckpointFollowTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kOlmo2) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kOlmo2);
  EXPECT_EQ(a->head_dim, kHeadDim);  // hidden_size / num_attention_heads: no head_dim key
  EXPECT_EQ(parameter_count(*a), rank_params(1, 32));
  EXPECT_EQ(parameter_count(*a), 7'298'617'344LL);
  // The checkpoint as HF Olmo2ForCausalLM names it, every tensor bfloat16.
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 2 * rank_params(1, 32));
  const auto shape = [&](const std::string& name) {
    for (const CheckpointTensor& t : *tensors) {
      if (t.name == name) return t.shape;
    }
    return std::vector<std::int64_t>{};
  };
  EXPECT_EQ(shape("model.layers.0.self_attn.q_norm.weight"), std::vector<std::int64_t>{kHidden});
  EXPECT_EQ(shape("model.layers.31.post_feedforward_layernorm.weight"),
            std::vector<std::int64_t>{kHidden});
  EXPECT_TRUE(shape("model.layers.0.input_layernorm.weight").empty());
}

TEST(Olmo2, BothEnginesKeepTheQkNormsWholeOnEveryRank) {
  // Beside the parameters, one RoPE cache of max_position_embeddings (4,096) x 128 rotary
  // columns: float32 in SGLang's rotary_embedding.py, the model dtype in vLLM's.
  const std::pair<const char*, std::int64_t> engines[] = {{"sglang", 4096 * kHeadDim * 4},
                                                          {"vllm", 4096 * kHeadDim * 2}};
  for (const auto& [engine, rope] : engines) {
    SCOPED_TRACE(engine);
    const Ledger one = family_ledger(engine, kOlmo2, 1, "");
    const Ledger two = family_ledger(engine, kOlmo2, 2, "");
    ASSERT_TRUE(one.fits());
    ASSERT_TRUE(two.fits());
    EXPECT_EQ(ledger_fact(one, "weights_logical_bytes"), 2 * rank_params(1, 32) + rope);
    EXPECT_EQ(ledger_fact(two, "weights_logical_bytes"), 2 * rank_params(2, 32) + rope);
  }
  EXPECT_EQ(2 * rank_params(1, 32), 14'597'234'688LL);
  // Every layer's K and V, 16 of the 32 KV heads of 128 per rank at TP 2, bfloat16.
  const Ledger sglang = family_ledger("sglang", kOlmo2, 2, "");
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), kLayers * 2 * 16 * kHeadDim * 2);
  const Ledger vllm = family_ledger("vllm", kOlmo2, 2, "");
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), 16 * 2 * 16 * kHeadDim * 2);
}

TEST(Olmo2, AGqaConfigSplitsItsKvHeadsButNotItsKNorm) {
  // OLMo 2's larger checkpoint has fewer KV heads than query heads: the same config with 8.
  const std::string gqa = config_variant(kOlmo2, "olmo2-gqa", "\"num_key_value_heads\": 32",
                                         "\"num_key_value_heads\": 8");
  const Ledger one = family_ledger("vllm", gqa, 1, "");
  const Ledger two = family_ledger("vllm", gqa, 2, "");
  ASSERT_TRUE(one.fits());
  ASSERT_TRUE(two.fits());
  EXPECT_EQ(ledger_fact(one, "weights_logical_bytes"), 2 * rank_params(1, 8) + 4096 * kHeadDim * 2);
  EXPECT_EQ(ledger_fact(two, "weights_logical_bytes"), 2 * rank_params(2, 8) + 4096 * kHeadDim * 2);
}

TEST(Olmo2, VllmGathersQAndKToNormalizeThem) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kOlmo2) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  const auto bytes_of = [](const std::vector<vllm::Activation>& l, const std::string& name) {
    const auto it =
        std::find_if(l.begin(), l.end(), [&](const vllm::Activation& t) { return t.name == name; });
    return it == l.end() ? std::int64_t{-1} : it->bytes.value();
  };
  const vllm::ActivationConstants k;
  const std::vector<vllm::Activation> tp2 =
      vllm::layer_activations(*a, vllm::ForwardShape{2, 2, 1}, 0, 1000, 2, k);
  // All 32 query heads and all 32 KV heads of 1,000 tokens, gathered and normalized.
  EXPECT_EQ(bytes_of(tp2, "q_all_gather"), 1000 * kHidden * 2);
  EXPECT_EQ(bytes_of(tp2, "k_norm"), 1000 * 32 * kHeadDim * 2);
  // The rank's own qkv_proj output: 16 + 2 x 16 heads.
  EXPECT_EQ(bytes_of(tp2, "qkv_proj"), 1000 * 48 * kHeadDim * 2);
  // One rank normalizes its own rows: nothing gathered.
  EXPECT_EQ(
      bytes_of(vllm::layer_activations(*a, vllm::ForwardShape{}, 0, 1000, 2, k), "q_all_gather"),
      -1);
}

}  // namespace
}  // namespace gpumem
