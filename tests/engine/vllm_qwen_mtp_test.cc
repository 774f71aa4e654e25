// vLLM's MTP speculative decoding of Qwen's hybrid models (Qwen3-Next, Qwen3.5, Qwen3.6):
// the draft is the checkpoint's own MTP block (vllm models/qwen3_5_mtp.py Qwen3_5MTP,
// qwen3_next_mtp.py Qwen3NextMTP), and the speculative tokens widen the Gated DeltaNet state.
// Each expected value is derived here from the public Qwen3.6-27B config (hidden 5120, MLP
// 17408, 24 query heads with an output gate, 4 KV heads of 256, 48 Gated DeltaNet layers of
// 16 key and 48 value heads of 128 with a 4-wide conv, 16 full-attention layers, a float32
// SSM state, vocabulary 248320, one MTP layer):
//   * weights: the MTP block, fc [5120, 10240], one full-attention decoder layer and five
//     norms (424,699,392 parameters) in bfloat16; the draft's embedding and head are freed for
//     the target's;
//   * the KV cache: the MTP layer's attention joins the 16 full-attention layers, so the
//     hybrid groups hold 17 layers each (48 linear layers in 3 groups, 3 of them padding);
//   * the state: num_speculative_tokens more conv rows per layer (gated_delta_net_state_shape
//     num_spec), which raises the attention block that holds one state page; a public vLLM
//     0.20.0 start-up of this model with fp8 KV and one speculative token prints "Setting
//     attention block size to 1584 tokens" and "Padding mamba page size by 0.51%".
#include <gtest/gtest.h>

#include <string>

#include "runtime/fact_ids.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kQwen = "Qwen--Qwen3.6-27B";
constexpr std::int64_t kHidden = 5120;
constexpr std::int64_t kMlp = 17408;
constexpr std::int64_t kHeadDim = 256;

Ledger run(const std::string& extra_args, int gpus = 1) {
  return family_ledger("vllm", kQwen, gpus,
                       "    --max-model-len: 65536\n    --kv-cache-dtype: fp8\n" + extra_args,
                       "h200", "0.20.0");
}

// A token's fp8 K and V of 4 heads of 256.
constexpr std::int64_t kTokenPage = 2 * 4 * kHeadDim;

// A state page: the conv window of (4 - 1 + N) rows of 16 x 128 x 2 + 48 x 128 values in
// bfloat16 and the float32 SSM state of 48 heads of 128 x 128.
std::int64_t state_bytes(std::int64_t n) {
  return (3 + n) * (16 * 128 * 2 + 48 * 128) * 2 + 48 * 128 * 128 * 4;
}

// The smallest multiple of 16 tokens whose attention page holds a state page.
std::int64_t block_tokens(std::int64_t n) {
  return 16 * ((state_bytes(n) + 16 * kTokenPage - 1) / (16 * kTokenPage));
}

// The scenario-wide block size vLLM settles on.
std::int64_t block_size(const Ledger& l) {
  const Fact* f = l.fact("block_size");
  return f == nullptr ? -1 : std::get<std::int64_t>(f->value);
}

std::string spec(int tokens) {
  return "    --speculative-config: '{\"method\": \"mtp\", \"num_speculative_tokens\": " +
         std::to_string(tokens) + "}'\n";
}

TEST(VllmQwenMtp, TheDraftIsTheCheckpointsMtpBlock) {
  const Ledger plain = run("");
  const Ledger drafted = run(spec(3));
  ASSERT_TRUE(plain.fits() && drafted.fits());
  const std::int64_t fc = 2 * kHidden * kHidden;
  const std::int64_t qkv = (2 * 24 * kHeadDim + 2 * 4 * kHeadDim) * kHidden;
  const std::int64_t o = kHidden * 24 * kHeadDim;
  const std::int64_t mlp = 3 * kMlp * kHidden;
  const std::int64_t norms = 2 * kHeadDim + 2 * kHidden + 3 * kHidden;
  EXPECT_EQ(fc + qkv + o + mlp + norms, 424'699'392);
  EXPECT_EQ(
      ledger_fact(drafted, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes"),
      2 * 424'699'392);
  // Split over TP 2: every module but the five norms halves.
  const Ledger plain2 = run("", 2);
  const Ledger drafted2 = run(spec(3), 2);
  ASSERT_TRUE(plain2.fits() && drafted2.fits());
  EXPECT_EQ(
      ledger_fact(drafted2, "weights_logical_bytes") - ledger_fact(plain2, "weights_logical_bytes"),
      2 * ((fc + qkv + o + mlp) / 2 + norms));
  // The MTP layer's attention joins the full-attention layers: groups of 17 layers.
  EXPECT_EQ(ledger_fact(plain, "kv_layers_per_group"), 16);
  EXPECT_EQ(ledger_fact(drafted, "kv_layers_per_group"), 17);
}

// Qwen3-Next-80B-A3B (hidden 2048, 16 query heads with an output gate, 2 KV heads of 256,
// 512 experts of 512 with a shared expert of 512, bfloat16) drafts through Qwen3NextMTP under
// its per-model name from v0.10.2: an MoE layer. At TP 2 every sliced module halves; the
// router gate, the shared expert's gate and the norms stay whole.
TEST(VllmQwenMtp, Qwen3NextDraftsWithAnMoeLayer) {
  const std::string next = "Qwen--Qwen3-Next-80B-A3B-Instruct";
  const std::string args = "    --max-model-len: 32768\n";
  const Ledger plain = family_ledger("vllm", next, 2, args, "h200", "0.10.2");
  const Ledger drafted =
      family_ledger("vllm", next, 2,
                    args +
                        "    --speculative-config: '{\"method\": \"qwen3_next_mtp\", "
                        "\"num_speculative_tokens\": 2}'\n",
                    "h200", "0.10.2");
  ASSERT_TRUE(plain.fits() && drafted.fits());
  constexpr std::int64_t h = 2048;
  const std::int64_t sliced = 2 * h * h                           // fc
                              + (2 * 16 * 256 + 2 * 2 * 256) * h  // qkv_proj
                              + h * 16 * 256                      // o_proj
                              + 512 * 3 * 512 * h                 // experts
                              + 3 * 512 * h;                      // shared expert
  const std::int64_t whole = 512 * h + h + 2 * 256 + 2 * h + 3 * h;
  EXPECT_EQ(
      ledger_fact(drafted, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes"),
      2 * (sliced / 2 + whole));
  EXPECT_EQ(ledger_fact(drafted, "kv_layers_per_group"), 13);
}

TEST(VllmQwenMtp, SpeculativeTokensWidenTheStateAndItsBlock) {
  EXPECT_EQ(block_tokens(0), 1568);
  EXPECT_EQ(block_tokens(1), 1584);
  const Ledger plain = run("");
  const Ledger one = run(spec(1));
  ASSERT_TRUE(plain.fits() && one.fits());
  EXPECT_EQ(block_size(plain), block_tokens(0));
  EXPECT_EQ(block_size(one), block_tokens(1));
  EXPECT_EQ(ledger_fact(one, "kv_page_bytes"), block_tokens(1) * kTokenPage);
  // The 0.51 % padding the log prints.
  EXPECT_EQ(block_tokens(1) * kTokenPage - state_bytes(1), 16'384);
}

TEST(VllmQwenMtp, EachSpeculativeTokenAddsAStatePagePerRequest) {
  // The concurrency vLLM prints counts a request's pages: the blocks of 65,536 tokens in the
  // full-attention group and, with prefix caching's "align" mode, 2 + N state pages in each
  // of the 3 linear groups (MambaSpec.max_memory_usage_bytes).
  const std::string caching = "    --enable-prefix-caching: true\n";
  for (const std::int64_t n : {1, 3}) {
    const Ledger l = run(caching + spec(static_cast<int>(n)));
    ASSERT_TRUE(l.fits());
    const Fact* concurrency = l.gpus.front().fact(fact_id::kMaxConcurrency);
    ASSERT_NE(concurrency, nullptr);
    const std::int64_t block = block_tokens(n);
    const std::int64_t per_request = (65536 + block - 1) / block + 3 * (2 + n);
    EXPECT_EQ(per_request, n == 1 ? 42 + 9 : 41 + 15);
    EXPECT_DOUBLE_EQ(
        std::get<double>(concurrency->value),
        static_cast<double>(ledger_fact(l, "kv_blocks")) / static_cast<double>(per_request));
  }
}

// A ModelOpt NVFP4 export (nvidia's Qwen3.5 checkpoints) keeps the MTP block in bfloat16 but
// excludes only mtp.layers.0* from quantization; vLLM builds mtp.fc unquantized from PR #38832
// (taken as 0.19.0), so the draft is the bfloat16 block, and before it the launch is refused.
TEST(VllmQwenMtp, AModelOptNvfp4CheckpointsFcIsBfloat16) {
  const std::string nvfp4 = config_variant(
      kQwen, "qwen3.6-27b-nvfp4-mtp", "\"image_token_id\"",
      R"("quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4", )"
      R"("group_size": 16, "exclude_modules": ["lm_head", "mtp.layers.0*", "model.visual*"]}, )"
      "\"image_token_id\"");
  const auto ledger = [&](const std::string& extra, const std::string& version) {
    return family_ledger("vllm", nvfp4, 1, "    --max-model-len: 65536\n" + extra, "h200", version);
  };
  const Ledger plain = ledger("", "0.20.0");
  const Ledger drafted = ledger(spec(1), "0.20.0");
  ASSERT_TRUE(plain.fits() && drafted.fits());
  EXPECT_EQ(
      ledger_fact(drafted, "weights_logical_bytes") - ledger_fact(plain, "weights_logical_bytes"),
      2 * 424'699'392);
  EXPECT_EQ(family_errors("vllm", nvfp4, spec(1), 1, "0.18.0"),
            "f.yaml:6:27: --speculative-config method mtp with an NVFP4 checkpoint is not "
            "modelled: vLLM builds the MTP block's bfloat16 fc unquantized only for ModelOpt NVFP4 "
            "and from PR #38832 (taken as 0.19.0)\n");
}

// A GPTQ 4-bit export's in_proj_ba has 48 outputs a rank at TP 2, too few for Marlin: vLLM
// serving --dtype float16 runs it on the Exllama kernel (WeightRules::gptq_exllama_fallback),
// in bfloat16 no kernel takes it and the start-up fails.
TEST(VllmQwenMtp, Float16ServesWhatMarlinCannotTile) {
  const std::string gptq = config_variant(
      kQwen, "qwen3.6-27b-gptq-int4", "\"image_token_id\"",
      R"("quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, )"
      R"("sym": true, "desc_act": false}, )"
      "\"image_token_id\"");
  const std::string args = "    --max-model-len: 32768\n    --language-model-only: true\n";
  EXPECT_TRUE(
      family_ledger("vllm", gptq, 2, args + "    --dtype: float16\n" + spec(1), "h200", "0.21.0")
          .fits());
  EXPECT_EQ(family_errors("vllm", gptq, "    --tensor-parallel-size: 2\n" + args, 2, "0.21.0"),
            "f.yaml:6:29: the model's weights cannot be laid out for this layout: "
            "model.layers.0.linear_attn.in_proj_ba: Weight output_size_per_partition = 48 and "
            "input_size_per_partition = 5120 do not fit Marlin's 64 x 128 tiles and group size "
            "128. Consider reducing tensor_parallel_size.\n");
}

TEST(VllmQwenMtp, WhatIsNotModelledIsRefusedByName) {
  // A config's mtp_num_hidden_layers other than one (here a hostile -2) is refused; only a
  // config without it takes vLLM's default of one.
  const std::string odd =
      config_variant(kQwen, "qwen3.6-27b-mtp-negative", "\"mtp_num_hidden_layers\": 1",
                     "\"mtp_num_hidden_layers\": -2");
  const std::string refused = family_errors("vllm", odd, spec(1), 1, "0.21.0");
  EXPECT_NE(refused.find("has -2 MTP layers (mtp_num_hidden_layers); gpumem models a checkpoint "
                         "with one"),
            std::string::npos)
      << refused;
  EXPECT_EQ(family_errors("vllm", "ibm-granite--granite-4.0-h-small",
                          "    --speculative-config: '{\"method\": \"ngram\", "
                          "\"num_speculative_tokens\": 2, \"prompt_lookup_max\": 4}'\n"),
            "f.yaml:6:27: --speculative-config with GraniteMoeHybridForCausalLM's "
            "linear-attention layers is not modelled (the state pages of the speculative "
            "tokens)\n");
}

}  // namespace
}  // namespace gpumem
