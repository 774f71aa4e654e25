// EXAONE 4.0 (Exaone4ForCausalLM) from its config in both engines: Llama's projections and
// MLP without biases, q/k norms per head (RMSNorm(head_dim), as Qwen3's), a norm after
// attention and one after the MLP and none before, tied embeddings in the 1.2B; where a
// sliding_window_pattern is given ("LLLG", the 32B's), three layers in four slide. Every
// expected value is derived here from the 1.2B's config (2048 hidden, 30 layers of 32 heads of
// 64, 8 KV heads, MLP 4096, vocabulary 102400).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "support/scratch_dir.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kExaone = "LGAI-EXAONE--EXAONE-4.0-1.2B";

constexpr std::int64_t kH = 2048;
constexpr std::int64_t kLayer = kH * 2048 + 2 * kH * 512 + 2048 * kH  // q, k, v, o
                                + 2 * 64                              // q_norm, k_norm
                                + 3 * kH * 4096                       // gate, up, down
                                + 2 * kH;                             // the two norms
constexpr std::int64_t kParams = 102400 * kH + 30 * kLayer + kH;

// The 1.2B's config with `pattern` as its sliding_window_pattern, a 4,096-token window and no
// layer_types (as transformers derives them from the pattern), in a folder of its own.
std::string with_pattern(const std::string& name, const std::string& pattern) {
  std::ifstream in(public_config_dir(kExaone) + "/config.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string config = text.str();
  const auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = config.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    config.replace(at, from.size(), to);
  };
  replace("\"sliding_window\": null", "\"sliding_window\": 4096");
  replace("\"sliding_window_pattern\": null", "\"sliding_window_pattern\": " + pattern);
  const size_t types = config.find("  \"layer_types\"");
  config.erase(types, config.find('\n', types) + 1 - types);
  const std::filesystem::path dir = scratch_dir() / ("exaone-" + name);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << config;
  return dir.string();
}

TEST(Exaone4, ParameterCountAndCheckpointFollowTheConfig) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kExaone) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kExaone4);
  EXPECT_EQ(parameter_count(*a), kParams);
  EXPECT_EQ(kParams, 1'279'391'488LL);
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
  ASSERT_TRUE(tensors.ok()) << tensors.status().message();
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 2 * kParams);
}

TEST(Exaone4, BothEnginesBuildTheSameLayers) {
  // Beside the parameters, one RoPE cache of 65,536 x 64: float32 in SGLang, bfloat16 in vLLM.
  const std::pair<const char*, std::int64_t> engines[] = {{"sglang", 65536 * 64 * 4},
                                                          {"vllm", 65536 * 64 * 2}};
  for (const auto& [engine, rope] : engines) {
    SCOPED_TRACE(engine);
    const Ledger l = family_ledger(engine, kExaone, 1, "");
    ASSERT_TRUE(l.fits());
    EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), 2 * kParams + rope);
  }
}

TEST(Exaone4, APatternMakesThreeLayersInFourSlide) {
  const std::string llg = with_pattern("lllg", "\"LLLG\"");
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(llg + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_TRUE(a->is_sliding_layer(0));
  EXPECT_TRUE(a->is_sliding_layer(2));
  EXPECT_FALSE(a->is_sliding_layer(3));
  EXPECT_FALSE(a->is_sliding_layer(27));  // (27 + 1) % 4 == 0
  EXPECT_EQ(a->sliding_window, 4096);
  // vLLM windows the sliding layers' KV cache; SGLang keeps one full pool (no hybrid SWA
  // memory for EXAONE) and on an H200 runs fa3, which it allows.
  EXPECT_TRUE(family_ledger("vllm", llg, 1, "").fits());
  EXPECT_TRUE(family_ledger("sglang", llg, 1, "").fits());
  // On an A100 SGLang's default backend is not one EXAONE's windows run on.
  EXPECT_EQ(family_errors("sglang", llg, "    --tp-size: 1\n", 1, "", "a100-80gb"),
            "f.yaml:3:9: AssertionError: EXAONE 4.0 with sliding windows runs on the fa3, triton "
            "or trtllm_mha attention backend, not flashinfer\n");
  // A bias SGLang would not build is refused at its key.
  const std::string biased = config_variant(kExaone, "exaone-bias", "\"head_dim\": 64",
                                            "\"attention_bias\": true, \"head_dim\": 64");
  EXPECT_EQ(config_dir_errors(biased),
            biased +
                "/config.json:7:21: 'attention_bias' true is not modelled for EXAONE 4.0: SGLang's "
                "exaone4.py builds no biases, vLLM's does\n");
  // The integer form of the pattern is refused at its key.
  const std::string four = with_pattern("four", "4");
  EXPECT_EQ(config_dir_errors(four),
            four +
                "/config.json:27:29: 'sliding_window_pattern' 4 is not modelled for EXAONE 4.0: "
                "SGLang's exaone4.py takes the length of a string of L and G\n");
}

}  // namespace
}  // namespace gpumem
