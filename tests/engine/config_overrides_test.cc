// Config overrides on the command line (engine/config_overrides.h): Qwen3-8B stretched to
// 131,072 tokens with the YaRN scaling Qwen's model card gives, in both engines, and the keys
// and models gpumem refuses.
#include <gtest/gtest.h>

#include <string>

#include "support/family_simulation.h"

namespace gpumem {
namespace {

// Qwen's card: factor 4 over the 32,768 positions Qwen3 was trained on.
constexpr const char* kYarn =
    "'{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, "
    "\"original_max_position_embeddings\": 32768}}'";

std::int64_t scenario_fact(const Ledger& l, std::string_view id) {
  const Fact* f = l.fact(id);
  EXPECT_NE(f, nullptr) << id;
  return f == nullptr ? -1 : std::get<std::int64_t>(f->value);
}

// vLLM (config/model.py _get_and_verify_max_len): a YaRN scaling's context is its original
// length times the factor, 131,072 instead of the config's 40,960. get_rope builds YaRN's
// cos/sin cache for those 131,072 positions: 128 wide in bfloat16, 90,112 rows more.
TEST(ConfigOverrides, VllmServesTheYarnContext) {
  const Ledger plain = family_ledger("vllm", "qwen3-8b", 1, "");
  const Ledger yarn =
      family_ledger("vllm", "qwen3-8b", 1, std::string("    --hf-overrides: ") + kYarn + "\n");
  EXPECT_EQ(scenario_fact(plain, "max_model_len"), 40'960);
  EXPECT_EQ(scenario_fact(yarn, "max_model_len"), 131'072);
  EXPECT_EQ(
      ledger_fact(yarn, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes"),
      (131'072 - 40'960) * 128 * 2);
  // max_position_embeddings alone lengthens the context and the default cache the same way.
  const Ledger longer = family_ledger("vllm", "qwen3-8b", 1,
                                      "    --hf-overrides: '{\"max_position_embeddings\": "
                                      "131072}'\n");
  EXPECT_EQ(scenario_fact(longer, "max_model_len"), 131'072);
  EXPECT_EQ(
      ledger_fact(longer, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes"),
      (131'072 - 40'960) * 128 * 2);
}

// SGLang (configs/model_config.py get_context_length) ignores the factor of a scaling that
// names its original length, so the derived context stays 40,960 and a longer
// --context-length stops SGLang unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is set; a
// longer max_position_embeddings is derived as it is.
TEST(ConfigOverrides, SglangKeepsTheDerivedContextOfAScalingWithItsOriginalLength) {
  const std::string yarn = std::string("    --json-model-override-args: ") + kYarn + "\n";
  EXPECT_EQ(family_errors("sglang", "qwen3-8b", yarn + "    --context-length: 131072\n"),
            "f.yaml:7:23: User-specified context_length (131072) is greater than the derived "
            "context_length (40960). This may lead to incorrect model outputs or CUDA errors. "
            "SGLang stops with ValueError unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is "
            "set.\n");
  EXPECT_EQ(scenario_fact(family_ledger("sglang", "qwen3-8b", 1, yarn), "context_len"), 40'960);
  const Ledger longer =
      family_ledger("sglang", "qwen3-8b", 1,
                    "    --json-model-override-args: '{\"max_position_embeddings\": 131072}'\n");
  EXPECT_EQ(scenario_fact(longer, "context_len"), 131'072);
}

// SGLang builds the draft's config with the same overrides (configs/model_config.py
// ModelConfig.from_server_args). Llama-3.1-8B cut to 8,192 tokens with an EAGLE-3 head whose
// config says 2,048 positions: the head's RoPE cache covers max(its positions, the target's
// context), 8,192 rows; with max_position_embeddings 262,144 it covers 262,144 (128 wide in
// float32, the head's own scaling-free cache).
TEST(ConfigOverrides, SglangOverridesTheDraftsConfigToo) {
  const std::string eagle =
      "    --context-length: 8192\n    --speculative-algorithm: EAGLE3\n"
      "    --speculative-draft-model-path: eagle3-llama3.1-instruct-8b\n";
  const auto draft_bytes = [](const Ledger& l) {
    for (const LedgerStep& s : l.gpus.front().steps) {
      if (s.name == "draft_weights") return s.allocated_delta.value();
    }
    ADD_FAILURE() << "no draft_weights step";
    return std::int64_t{-1};
  };
  const Ledger plain = family_ledger("sglang", "llama-3.1-8b-instruct", 1, eagle);
  const Ledger longer = family_ledger(
      "sglang", "llama-3.1-8b-instruct", 1,
      eagle + "    --json-model-override-args: '{\"max_position_embeddings\": 262144}'\n");
  EXPECT_EQ(draft_bytes(longer) - draft_bytes(plain), (262'144 - 8'192) * 128 * 4);
}

TEST(ConfigOverrides, KeysAndModelsGpumemDoesNotApplyAreRefusedByName) {
  EXPECT_EQ(
      family_errors("vllm", "qwen3-8b",
                    "    --hf-overrides: '{\"num_hidden_layers\": 12, \"rope_theta\": 1e6}'\n"),
      "f.yaml:6:21: --hf-overrides: overriding 'num_hidden_layers' is not modelled (gpumem "
      "applies max_position_embeddings, rope_scaling and rope_theta, read once from "
      "config.json otherwise); write the changed config.json and name it as the model\n");
  EXPECT_EQ(family_errors("sglang", "qwen3-8b",
                          "    --json-model-override-args: '{\"rope_scaling\": {\"rope_type\": "
                          "\"ntk\"}}'\n"),
            "f.yaml:6:33: --json-model-override-args: rope_scaling type 'ntk' is not modelled; "
            "gpumem models default, linear, dynamic, llama3, yarn and longrope\n");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --hf-overrides: '{\"rope_scaling\": 3}'\n"),
            "f.yaml:6:21: --hf-overrides: 'rope_scaling' must be a mapping, got '3'\n");
  // Nesting past yaml-cpp's depth guard is an error at the flag, not a crash.
  const std::string deep =
      "{\"rope_scaling\": " + std::string(20000, '[') + std::string(20000, ']') + "}";
  EXPECT_NE(family_errors("vllm", "qwen3-8b", "    --hf-overrides: '" + deep + "'\n")
                .find("f.yaml:6:21: --hf-overrides is not valid JSON: "),
            std::string::npos);
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --hf-overrides: '[1, 2]'\n"),
            "f.yaml:6:21: --hf-overrides must be a JSON object\n");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b",
                          "    --hf-overrides: '{\"max_position_embeddings\": -5}'\n"),
            "f.yaml:6:21: --hf-overrides: 'max_position_embeddings' must be a positive integer "
            "up to 67108864\n");
  EXPECT_EQ(family_errors("vllm", "qwen2.5-vl-7b-instruct",
                          "    --hf-overrides: '{\"max_position_embeddings\": 131072}'\n"),
            "f.yaml:6:21: --hf-overrides with Qwen2_5_VLForConditionalGeneration is not "
            "modelled: the engine updates the top-level config, while the language model reads "
            "text_config; write the changed config.json and name it as the model\n");
}

}  // namespace
}  // namespace gpumem
