// vLLM's MTP speculative decoding (--speculative-config method "mtp", or deepseek_mtp /
// glm4_moe_mtp): the draft is the checkpoint's own MTP layer (vllm models/deepseek_mtp.py
// DeepSeekMTP, glm4_moe_mtp.py Glm4MoeMTP), built after the target with the same TP layout.
// Each expected value is derived here from the public config (DeepSeek-V3.1: hidden 7168,
// vocabulary 129280, 61 layers and one MTP layer, block FP8), on eight H200s at TP 8:
//   * weights: one more MoE decoder layer (what a 62nd target layer would add), the unsharded
//     eh_proj [7168, 14336] and three norms in bfloat16, and, before PR #34385 (taken as
//     0.17.0), shared_head.head's 129280 / 8 vocabulary rows; the draft's embedding is freed
//     for the target's;
//   * the KV cache: the MTP layer's MLA joins the target's one group (61 -> 62 layers of the
//     same 64-token page);
//   * EagleProposer's buffers: hidden_states and inputs_embeds of max_num_batched_tokens rows
//     of 7168 bfloat16 values, beside input_ids, positions, arange and backup_next_token_ids.
#include <gtest/gtest.h>

#include <string>

#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kDeepseek = "deepseek-ai--DeepSeek-V3.1";
constexpr std::int64_t kHidden = 7168;
constexpr std::int64_t kVocab = 129280;

Ledger run(const std::string& model, const std::string& version, const std::string& spec) {
  return family_ledger("vllm", model, 8,
                       spec.empty() ? "" : "    --speculative-config: '" + spec + "'\n", "h200",
                       version);
}

std::int64_t step_change(const Ledger& l, const std::string& step) {
  for (const LedgerStep& s : l.gpus.at(0).steps) {
    if (s.name == step) return s.allocated_delta.value();
  }
  ADD_FAILURE() << "no step " << step;
  return 0;
}

TEST(VllmMtp, TheDraftIsTheCheckpointsMtpLayer) {
  const std::string mtp = R"({"method": "mtp", "num_speculative_tokens": 1})";
  const Ledger plain = run(kDeepseek, "0.15.0", "");
  const Ledger drafted = run(kDeepseek, "0.15.0", mtp);
  // The same checkpoint with a 62nd layer: one MoE decoder layer more.
  const Ledger deeper =
      run(config_variant(kDeepseek, "deepseek-v3.1-62-layers", "\"num_hidden_layers\": 61",
                         "\"num_hidden_layers\": 62"),
          "0.15.0", "");
  ASSERT_TRUE(plain.fits() && drafted.fits() && deeper.fits());
  const std::int64_t layer =
      ledger_fact(deeper, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes");
  const std::int64_t eh_proj = kHidden * 2 * kHidden * 2;
  const std::int64_t norms = 3 * kHidden * 2;
  const std::int64_t head = kVocab / 8 * kHidden * 2;
  EXPECT_EQ(
      ledger_fact(drafted, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes"),
      layer + eh_proj + norms + head);
  EXPECT_EQ(eh_proj + head, 437'190'656);
  // From 0.17.0 the head is the target's.
  const Ledger shared = run(kDeepseek, "0.17.0", mtp);
  const Ledger shared_plain = run(kDeepseek, "0.17.0", "");
  ASSERT_TRUE(shared.fits() && shared_plain.fits());
  EXPECT_EQ(ledger_fact(shared, "weights_logical_bytes") -
                ledger_fact(shared_plain, "weights_logical_bytes"),
            layer + eh_proj + norms);
  // One MLA group of 64-token pages (576 bfloat16 values a token), one layer more.
  EXPECT_EQ(ledger_fact(plain, "kv_layers_per_group"), 61);
  EXPECT_EQ(ledger_fact(drafted, "kv_layers_per_group"), 62);
  EXPECT_EQ(ledger_fact(drafted, "kv_page_bytes"), 64 * 576 * 2);
  // The proposer's buffers, before the runner's own, at 8,192 batched tokens.
  const std::int64_t tokens = 8192;
  EXPECT_EQ(step_change(drafted, "model_runner") - step_change(plain, "model_runner"),
            tokens * 4 + tokens * 8 + 2 * tokens * kHidden * 2 + tokens * 4 + 1024 * 4);
}

// GLM-4.5 (block FP8, hidden 5120, vocabulary 151552, 92 layers and one MTP layer) drafts
// alike through Glm4MoeMTP; glm4_moe_mtp is its per-model name.
TEST(VllmMtp, Glm45DraftsWithItsMtpLayerToo) {
  const std::string glm = "zai-org--GLM-4.5-FP8";
  const Ledger plain = run(glm, "0.15.0", "");
  const Ledger drafted =
      run(glm, "0.15.0", R"({"method": "glm4_moe_mtp", "num_speculative_tokens": 2})");
  const Ledger deeper = run(config_variant(glm, "glm-4.5-93-layers", "\"num_hidden_layers\": 92",
                                           "\"num_hidden_layers\": 93"),
                            "0.15.0", "");
  ASSERT_TRUE(plain.fits() && drafted.fits() && deeper.fits());
  const std::int64_t layer =
      ledger_fact(deeper, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes");
  constexpr std::int64_t kGlmHidden = 5120;
  EXPECT_EQ(
      ledger_fact(drafted, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes"),
      layer + kGlmHidden * 2 * kGlmHidden * 2 + 3 * kGlmHidden * 2 + 151552 / 8 * kGlmHidden * 2);
  EXPECT_EQ(ledger_fact(drafted, "kv_layers_per_group") - ledger_fact(plain, "kv_layers_per_group"),
            1);
}

TEST(VllmMtp, ThePerModelNamesAreMtp) {
  const Ledger named =
      run(kDeepseek, "0.15.0", R"({"method": "deepseek_mtp", "num_speculative_tokens": 1})");
  const Ledger mtp = run(kDeepseek, "0.15.0", R"({"method": "mtp", "num_speculative_tokens": 1})");
  ASSERT_TRUE(named.fits() && mtp.fits());
  EXPECT_EQ(ledger_fact(named, "weights_logical_bytes"), ledger_fact(mtp, "weights_logical_bytes"));
  EXPECT_EQ(ledger_fact(named, "kv_tokens"), ledger_fact(mtp, "kv_tokens"));
}

TEST(VllmMtp, WhatIsNotModelledIsRefusedByName) {
  const auto errors = [](const std::string& model, const std::string& version,
                         const std::string& spec) {
    return family_errors(
        "vllm", model, "    --tensor-parallel-size: 8\n    --speculative-config: '" + spec + "'\n",
        8, version);
  };
  EXPECT_EQ(errors(kDeepseek, "0.10.2", R"({"method": "mtp", "num_speculative_tokens": 1})"),
            "f.yaml:4:12: --speculative-config method mtp is not a method of vLLM 0.10.2 (from "
            "0.11.0; before it, deepseek_mtp or glm4_moe_mtp)\n");
  EXPECT_EQ(errors("qwen3-32b", "0.15.0", R"({"method": "mtp", "num_speculative_tokens": 1})"),
            "f.yaml:7:27: --speculative-config method mtp with Qwen3ForCausalLM is not modelled "
            "(gpumem models vLLM's DeepSeek-V3, GLM-4.5, Qwen3-Next and Qwen3.5/3.6 MTP "
            "drafts)\n");
  EXPECT_EQ(errors(kDeepseek, "0.15.0",
                   R"({"method": "mtp", "model": "x", "num_speculative_tokens": 1})"),
            "f.yaml:7:27: --speculative-config method mtp drafts with the target's own MTP "
            "layers; a draft 'model' is not modelled\n");
  EXPECT_EQ(errors(kDeepseek, "0.15.0", R"({"method": "medusa", "num_speculative_tokens": 1})"),
            "f.yaml:7:27: --speculative-config method 'medusa' is not modelled; gpumem models "
            "ngram, eagle3 and mtp (deepseek_mtp, glm4_moe_mtp, qwen3_next_mtp)\n");
}

}  // namespace
}  // namespace gpumem
