// Per-tensor FP8 checkpoints (quant_method fp8 without weight_block_size, as AutoFP8 writes
// them) in both engines: Meta-Llama-3-8B-Instruct's published config with AutoFP8's
// quantization_config. Every expected byte count is the bfloat16 model's, less what the
// linear layers' bfloat16 weights take, plus what each engine keeps per linear layer instead:
// vLLM a float8 weight and scalar scales (or Marlin's per-row scales and workspace below FP8
// tensor cores), SGLang a float8 weight and one float32 scale per output row.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kLlama3 = "meta-llama--Meta-Llama-3-8B-Instruct";

constexpr std::int64_t kLayers = 32;
constexpr std::int64_t kHidden = 4096;
// Per layer: qkv_proj (32 + 2 x 8 heads of 128), o_proj, gate_up_proj (2 x 14,336), down_proj.
constexpr std::int64_t kLinearParams = kHidden * (6144 + 4096 + 28672) + 14336 * kHidden;
constexpr std::int64_t kOutputRows = 6144 + 4096 + 28672 + 4096;
constexpr std::int64_t kLinears = 4;

// The published config with AutoFP8's quantization_config (lm_head left in bfloat16).
std::string autofp8(const std::string& scheme) {
  return config_variant(
      kLlama3, "autofp8-" + scheme, "\"use_cache\": true,",
      "\"use_cache\": true,\n  \"quantization_config\": {\"activation_scheme\": \"" + scheme +
          "\", \"ignored_layers\": [\"lm_head\"], \"quant_method\": \"fp8\"},");
}

// The bfloat16 model's weights with every linear weight's two bytes per parameter replaced by
// one and `per_linear` bytes more for each linear layer (`per_layer_rows` bytes per layer).
std::int64_t fp8_bytes(std::int64_t bf16, std::int64_t per_linear, std::int64_t per_layer_rows) {
  return bf16 - kLayers * kLinearParams + kLayers * (kLinears * per_linear + per_layer_rows);
}

// The weights step's rise to its peak above the memory in use before it.
std::int64_t weights_load_peak(const Ledger& l) {
  const std::vector<LedgerStep>& steps = l.gpus.front().steps;
  for (size_t i = 1; i < steps.size(); ++i) {
    if (steps[i].name == "weights")
      return steps[i].peak_used.value() - steps[i - 1].used_after.value();
  }
  return -1;
}

TEST(Fp8PerTensor, ReadsAutoFp8Configs) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(autofp8("static") + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->quantization.method, QuantMethod::kFp8PerTensor);
  EXPECT_TRUE(a->quantization.activation_scales);
  EXPECT_TRUE(a->quantization.not_converted.matches("lm_head"));
  EXPECT_TRUE(a->quantization.converts("model.layers.0.self_attn.q_proj"));
  const std::string dir =
      config_variant(kLlama3, "autofp8-scheme", "\"use_cache\": true,",
                     "\"use_cache\": true,\n  \"quantization_config\": {\"activation_scheme\": "
                     "\"per_token\", \"quant_method\": \"fp8\"},");
  Diagnostics bad;
  EXPECT_FALSE(load_hf_config(dir + "/config.json", bad).ok());
  EXPECT_EQ(bad.to_string(), dir + "/config.json:26:48: activation_scheme 'per_token' is not " +
                                 "modelled; gpumem models static and dynamic\n");
}

// vLLM on an H200 requantizes each fused linear to its largest part's scale and keeps one
// float32 weight scale and, for static activations, one input scale: 8 B per linear. SGLang
// keeps one float32 weight scale per output row (4 x 43,008 B per layer) and the input scale.
TEST(Fp8PerTensor, EachEngineKeepsItsScalesOnAnH200) {
  const std::int64_t vllm_bf16 =
      ledger_fact(family_ledger("vllm", kLlama3, 1, ""), "weights_logical_bytes");
  const Ledger vllm = family_ledger("vllm", autofp8("static"), 1, "");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), fp8_bytes(vllm_bf16, 8, 0));

  const std::int64_t sglang_bf16 =
      ledger_fact(family_ledger("sglang", kLlama3, 1, ""), "weights_logical_bytes");
  const Ledger sglang = family_ledger("sglang", autofp8("static"), 1, "");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"),
            fp8_bytes(sglang_bf16, 4, 4 * kOutputRows));
  const Ledger dynamic = family_ledger("sglang", autofp8("dynamic"), 1, "");
  EXPECT_EQ(ledger_fact(dynamic, "weights_logical_bytes"),
            fp8_bytes(sglang_bf16, 0, 4 * kOutputRows));
}

// Below FP8 tensor cores vLLM runs the weights on Marlin: the scales become one model-dtype
// entry per output row, each linear gets a workspace of one int32 per SM (108 on an A100), and
// the input scale is dropped. SGLang's Marlin fallback is refused by name.
TEST(Fp8PerTensor, AnA100RunsVllmOnMarlinAndIsRefusedInSglang) {
  const std::int64_t bf16 =
      ledger_fact(family_ledger("vllm", kLlama3, 1, "", "a100-80gb"), "weights_logical_bytes");
  const Ledger vllm = family_ledger("vllm", autofp8("static"), 1, "", "a100-80gb");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), fp8_bytes(bf16, 4 * 108, 2 * kOutputRows));
  EXPECT_EQ(family_errors("sglang", autofp8("static"), "    --tp-size: 1\n", 1, "", "a100-80gb"),
            "f.yaml:1:17: a100-80gb has no FP8 tensor cores (compute capability below 8.9): "
            "SGLang's Marlin fallback for per-tensor FP8 weights (PR #8990) is not modelled\n");
}

// Online FP8 (--quantization fp8 on the bfloat16 checkpoint): the final bytes are the dynamic
// per-tensor checkpoint's in vLLM (one float32 scalar per linear) and one float32 scale per
// output row in SGLang. From vLLM 0.15 (PR #31914) each linear is quantized as soon as it is
// loaded, so the load never holds the whole model in bfloat16, only the result and freed
// linears the allocator keeps cached (gate_up: 2 x 14,336 x 4,096 x 2 B); vLLM 0.14 and
// SGLang hold the whole bfloat16 model first.
TEST(Fp8PerTensor, OnlineQuantizationKeepsTheDynamicLayout) {
  const std::string online = "    --quantization: fp8\n";
  const std::int64_t gate_up = 2 * 14336 * kHidden * 2;
  const Ledger bf16_vllm = family_ledger("vllm", kLlama3, 1, "");
  const std::int64_t vllm_bf16 = ledger_fact(bf16_vllm, "weights_logical_bytes");
  const Ledger vllm = family_ledger("vllm", kLlama3, 1, online);
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), fp8_bytes(vllm_bf16, 4, 0));
  const std::int64_t fp8 = fp8_bytes(vllm_bf16, 4, 0);
  EXPECT_GT(weights_load_peak(vllm), fp8);
  // The freed bfloat16 blocks stay cached for later linears, never the whole model's.
  EXPECT_LT(weights_load_peak(vllm), fp8 + 2 * gate_up);
  const Ledger old = family_ledger("vllm", kLlama3, 1, online, "h200", "0.14.0");
  ASSERT_TRUE(old.fits());
  EXPECT_EQ(ledger_fact(old, "weights_logical_bytes"), fp8);
  EXPECT_GE(weights_load_peak(old), vllm_bf16);

  const std::int64_t sglang_bf16 =
      ledger_fact(family_ledger("sglang", kLlama3, 1, ""), "weights_logical_bytes");
  const Ledger sglang = family_ledger("sglang", kLlama3, 1, online);
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"),
            fp8_bytes(sglang_bf16, 0, 4 * kOutputRows));
}

TEST(Fp8PerTensor, OnlineQuantizationGpumemDoesNotModelIsRefused) {
  EXPECT_EQ(family_errors("vllm", kLlama3, "    --quantization: fp8\n", 1, "", "a100-80gb"),
            "f.yaml:6:21: --quantization fp8 on " + public_config_dir(kLlama3) +
                " (online FP8) is not modelled on a100-80gb, which has no FP8 tensor "
                "cores (compute capability below 8.9): vLLM runs the result on Marlin\n");
}

// Online FP8 experts (weights/moe_weights.cc add_fp8_online_experts) keep what a per-tensor FP8
// checkpoint's experts keep once loaded: one byte a weight and one float32 scale per expert and
// projection, in both engines (Qwen3-30B-A3B, 48 layers of 128 experts, hidden 2048,
// intermediate 768, on an H200). vLLM from 0.15 quantizes each layer as its weights arrive, so
// its load peaks near the float8 model; before, and in SGLang, every bfloat16 expert is
// loaded before any is quantized.
TEST(Fp8PerTensor, OnlineQuantizationOfExperts) {
  const std::string qwen3 = "Qwen--Qwen3-30B-A3B-Instruct-2507";
  const std::string checkpoint =
      config_variant(qwen3, "qwen3-moe-autofp8-dynamic", "\"use_cache\": true,",
                     "\"use_cache\": true,\n  \"quantization_config\": {\"activation_scheme\": "
                     "\"dynamic\", \"ignored_layers\": [\"lm_head\"], \"quant_method\": \"fp8\"},");
  const std::string online = "    --quantization: fp8\n";
  constexpr std::int64_t e = 128, h = 2048, i = 768, layers = 48;
  const std::int64_t bf16_experts = layers * 2 * e * 3 * h * i;
  for (const std::string engine : {"vllm", "sglang"}) {
    SCOPED_TRACE(engine);
    const Ledger bf16 = family_ledger(engine, qwen3, 1, "");
    const Ledger quantized = family_ledger(engine, qwen3, 1, online);
    const Ledger serialized = family_ledger(engine, checkpoint, 1, "");
    ASSERT_TRUE(quantized.fits());
    ASSERT_TRUE(serialized.fits());
    const std::int64_t fp8 = ledger_fact(quantized, "weights_logical_bytes");
    EXPECT_EQ(fp8, ledger_fact(serialized, "weights_logical_bytes"));
    // The experts alone halve, less their scales; the attention's linears shrink too.
    EXPECT_LT(fp8,
              ledger_fact(bf16, "weights_logical_bytes") - bf16_experts / 2 + layers * 2 * 4 * e);
  }
  const std::int64_t layer_bf16 = 2 * e * 3 * h * i;
  const Ledger per_layer = family_ledger("vllm", qwen3, 1, online);
  const std::int64_t fp8 = ledger_fact(per_layer, "weights_logical_bytes");
  EXPECT_GT(weights_load_peak(per_layer), fp8);
  EXPECT_LT(weights_load_peak(per_layer), fp8 + layer_bf16 + layer_bf16 / 2);
  const Ledger whole_model = family_ledger("vllm", qwen3, 1, online, "h200", "0.14.0");
  EXPECT_EQ(ledger_fact(whole_model, "weights_logical_bytes"), fp8);
  EXPECT_GE(weights_load_peak(whole_model),
            ledger_fact(family_ledger("vllm", qwen3, 1, ""), "weights_logical_bytes"));
  EXPECT_GE(weights_load_peak(family_ledger("sglang", qwen3, 1, online)),
            ledger_fact(family_ledger("sglang", qwen3, 1, ""), "weights_logical_bytes"));
}

}  // namespace
}  // namespace gpumem
