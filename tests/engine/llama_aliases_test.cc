// Classes both engines serve with Llama's layout (hf_architectures.cc): InternLM3 (vLLM's and
// SGLang's llama.py), SmolLM3 (SGLang's smollm3.py, vLLM's Transformers backend) and Arcee's AFM
// (both arcee.py: no gate in the MLP), from their published configs. Every expected value is
// derived here from the config: InternLM3-8B has 48 layers of 4096 hidden, 32 heads of 128 and 2 KV
// heads, MLP 10240, vocabulary 128512, untied; SmolLM3-3B 36 layers of 2048 hidden, 16 heads of 128
// and 4 KV heads, MLP 11008, vocabulary 128256, tied.
#include <gtest/gtest.h>

#include <string>

#include "catalog/parameter_count.h"
#include "support/family_simulation.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kInternLm3Repo = "internlm--internlm3-8b-instruct";

constexpr std::int64_t llama_layer(std::int64_t h, std::int64_t q, std::int64_t kv,
                                   std::int64_t mlp) {
  return h * q + 2 * h * kv + q * h  // q, k, v, o
         + 3 * h * mlp               // gate, up, down
         + 2 * h;                    // input and post-attention norms
}

constexpr std::int64_t kInternLm3 =
    2 * 128512 * 4096 + 48 * llama_layer(4096, 32 * 128, 2 * 128, 10240) + 4096;
constexpr std::int64_t kSmolLm3 =
    128256 * 2048 + 36 * llama_layer(2048, 16 * 128, 4 * 128, 11008) + 2048;

std::int64_t checkpoint_size(const std::string& repo) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  if (!a.ok()) return -1;
  EXPECT_EQ(a->family, ArchitectureFamily::kLlama);
  EXPECT_EQ(parameter_count(*a) * 2, checkpoint_bytes(*checkpoint_tensors(*a)).value());
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(*a);
  EXPECT_TRUE(tensors.ok());
  return tensors.ok() ? checkpoint_bytes(*tensors).value() : -1;
}

TEST(LlamaAliases, CheckpointsFollowTheConfig) {
  EXPECT_EQ(kInternLm3, 8'804'241'408LL);
  EXPECT_EQ(checkpoint_size("internlm--internlm3-8b-instruct"), 2 * kInternLm3);
  // The published model.safetensors.index.json total_size (SOURCE.md).
  EXPECT_EQ(checkpoint_size("HuggingFaceTB--SmolLM3-3B"), 6'150'197'248LL);
  EXPECT_EQ(2 * kSmolLm3, 6'150'197'248LL);
}

// Arcee's AFM: Llama's attention and norms, an MLP of up_proj and down_proj (ReLU², no gate);
// 36 layers of 2560 hidden, 20 heads of 128 and 4 KV heads, MLP 18432, vocabulary 128005,
// untied.
constexpr std::int64_t kArceeLayer = 2560 * 2560 + 2 * 2560 * 512 + 2560 * 2560  // q, k, v, o
                                     + 2 * 2560 * 18432                          // up, down
                                     + 2 * 2560;                                 // the two norms
constexpr std::int64_t kArcee = 2 * 128005 * 2560 + 36 * kArceeLayer + 2560;
const std::string kArceeRepo = "Delta-Vector--Austral-AFM-SFT";

TEST(LlamaAliases, ArceesMlpHasNoGate) {
  EXPECT_EQ(checkpoint_size(kArceeRepo), 2 * kArcee);
  // Both engines pad the embedding and the head to 128,064 rows (a multiple of 64); YaRN x20
  // over 4,096 positions caches 81,920 rows of 128, float32 in SGLang, bfloat16 in vLLM.
  const std::pair<const char*, std::int64_t> engines[] = {{"sglang", 81920 * 128 * 4},
                                                          {"vllm", 81920 * 128 * 2}};
  for (const auto& [engine, rope] : engines) {
    SCOPED_TRACE(engine);
    const Ledger l = family_ledger(engine, kArceeRepo, 1, "");
    ASSERT_TRUE(l.fits());
    EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), 2 * (kArcee + 2 * 59 * 2560) + rope);
  }
  const std::string silu = config_variant(kArceeRepo, "arcee-silu", "\"hidden_act\": \"relu2\"",
                                          "\"hidden_act\": \"silu\"");
  EXPECT_EQ(config_dir_errors(silu), silu +
                                         "/config.json:11:17: Unsupported activation: silu. Only "
                                         "'relu2' is supported for AFM (vLLM's and SGLang's "
                                         "arcee.py)\n");
  EXPECT_EQ(family_errors("sglang", kArceeRepo, "    --tp-size: 1\n", 1, "0.4.9"),
            "f.yaml:4:12: ArceeForCausalLM is not served by SGLang 0.4.9 (from 0.4.10)\n");
}

TEST(LlamaAliases, BothEnginesBuildLlamasLayers) {
  // InternLM3's dynamic RoPE (factor 6 over 32,768 positions) caches 196,608 rows of 128: float32
  // in SGLang, bfloat16 in vLLM. SmolLM3's 65,536 rows in SGLang; vLLM's Transformers backend
  // keeps transformers' inv_freq, 64 float32 values.
  struct Case {
    const char* engine;
    const char* repo;
    std::int64_t params;
    std::int64_t rope;
  };
  const Case cases[] = {
      {"sglang", "internlm--internlm3-8b-instruct", kInternLm3, 196608 * 128 * 4},
      {"vllm", "internlm--internlm3-8b-instruct", kInternLm3, 196608 * 128 * 2},
      {"sglang", "HuggingFaceTB--SmolLM3-3B", kSmolLm3, 65536 * 128 * 4},
      {"vllm", "HuggingFaceTB--SmolLM3-3B", kSmolLm3, 64 * 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.engine) + " " + c.repo);
    const Ledger l = family_ledger(c.engine, c.repo, 1, "");
    ASSERT_TRUE(l.fits());
    EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), 2 * c.params + c.rope);
  }
}

// --model-impl transformers is what vLLM does with SmolLM3 anyway, so it simulates the same;
// on a model vLLM builds itself it is refused (the backend's layers are transformers' own), as
// a log's "has no vLLM implementation, falling back to Transformers" line asks
// (ReaderClasses.TheTransformersFallbackIsTheBackendFlag).
TEST(LlamaAliases, TheTransformersBackendIsModelledWhereVllmTakesItAnyway) {
  const Ledger given =
      family_ledger("vllm", "HuggingFaceTB--SmolLM3-3B", 1, "    --model-impl: transformers\n");
  ASSERT_TRUE(given.fits());
  EXPECT_EQ(ledger_fact(given, "weights_logical_bytes"), 2 * kSmolLm3 + 64 * 4);
  EXPECT_EQ(
      family_errors("vllm", "internlm--internlm3-8b-instruct", "    --model-impl: transformers\n"),
      "f.yaml:6:19: --model-impl transformers with InternLM3ForCausalLM is not modelled: "
      "the Transformers backend has other layers, fusions and activation peaks than "
      "vLLM's own model\n");
  EXPECT_EQ(family_errors("vllm", "internlm--internlm3-8b-instruct", "    --model-impl: vllm\n"),
            "");
  EXPECT_EQ(family_errors("vllm", "HuggingFaceTB--SmolLM3-3B", "    --model-impl: terratorch\n"),
            "f.yaml:6:19: --model-impl terratorch with SmolLM3ForCausalLM is not modelled: the "
            "TerraTorch backend has other layers, fusions and activation peaks than vLLM's own "
            "model\n");
}

// vLLM's llama.py biases q/k/v by qkv_bias, SGLang's by bias; InternLM3's `bias` also biases
// its MLP, which neither builds: each is refused at its key.
TEST(LlamaAliases, BiasesTheEnginesBuildDifferentlyAreRefused) {
  const std::string qkv =
      config_variant(kInternLm3Repo, "internlm3-qkv", "\"qkv_bias\": false", "\"qkv_bias\": true");
  EXPECT_EQ(config_dir_errors(qkv),
            qkv +
                "/config.json:25:17: 'qkv_bias' true other than 'attention_bias' is not "
                "modelled for InternLM3ForCausalLM: vLLM's llama.py biases q/k/v by it, "
                "SGLang's llama.py by attention_bias (or bias)\n");
  const std::string bias =
      config_variant(kInternLm3Repo, "internlm3-bias", "\"bias\": false", "\"bias\": true");
  // bias true with qkv_bias false: SGLang would bias q/k/v, vLLM not.
  EXPECT_EQ(config_dir_errors(bias),
            bias +
                "/config.json:25:17: 'qkv_bias' false other than 'attention_bias' is not "
                "modelled for InternLM3ForCausalLM: vLLM's llama.py biases q/k/v by it, SGLang's "
                "llama.py by attention_bias (or bias)\n" +
                bias +
                "/config.json:11:13: 'bias' true is not modelled for InternLM3ForCausalLM: the "
                "checkpoint then biases o_proj and the MLP, which neither engine's llama.py "
                "builds as such\n");
}

}  // namespace
}  // namespace gpumem
