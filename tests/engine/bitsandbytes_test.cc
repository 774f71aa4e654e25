// Pre-quantized bitsandbytes 4-bit checkpoints (quant_method bitsandbytes, load_in_4bit) in both
// engines: Meta-Llama-3-8B-Instruct's published config with the quantization_config transformers'
// BitsAndBytesConfig writes. Every expected byte count is the bfloat16 model's, less what the
// linear layers' bfloat16 weights take, plus per checkpoint module what each engine keeps: the
// nf4 pairs and an absmax per 64 weights, float32 in vLLM (which dequantizes a double-quantized
// absmax once loaded), nested in SGLang.
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "engine/vllm/activation_model.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kLlama3 = "meta-llama--Meta-Llama-3-8B-Instruct";

constexpr std::int64_t kLayers = 32;
constexpr std::int64_t kHidden = 4096;
constexpr std::int64_t kInter = 14336;
// Per layer, the checkpoint's seven quantized modules: q, k, v, o, gate, up, down.
constexpr std::int64_t kShards[] = {4096 * kHidden, 1024 * kHidden,  1024 * kHidden,
                                    kHidden * 4096, kInter* kHidden, kInter* kHidden,
                                    kHidden* kInter};
constexpr std::int64_t kLinearParams = kHidden * (6144 + 4096 + 2 * kInter) + kInter * kHidden;

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// One module's bytes: half a byte per weight, a code of 16 float32, and the absmax of its
// blocks of 64: float32, or (nested) uint8 with a float32 absmax per 256 blocks, a code of
// 256 float32 and a float32 offset.
constexpr std::int64_t shard_bytes(std::int64_t n, bool nested) {
  const std::int64_t blocks = ceil_div(n, 64);
  return n / 2 + 64 + (nested ? blocks + 4 * ceil_div(blocks, 256) + 1024 + 4 : 4 * blocks);
}

constexpr std::int64_t layer_bytes(bool nested) {
  std::int64_t b = 0;
  for (std::int64_t n : kShards) b += shard_bytes(n, nested);
  return b;
}

// The published config with the quantization_config transformers writes for nf4 with double
// quant (BitsAndBytesConfig.to_dict), `extra` replacing its skip list.
std::string bnb(const std::string& name,
                const std::string& extra = "\"llm_int8_skip_modules\": null") {
  return config_variant(
      kLlama3, "bnb-" + name, "\"use_cache\": true,",
      "\"use_cache\": true,\n  \"quantization_config\": {\"_load_in_4bit\": true, "
      "\"_load_in_8bit\": false, \"bnb_4bit_compute_dtype\": \"bfloat16\", "
      "\"bnb_4bit_quant_storage\": \"uint8\", \"bnb_4bit_quant_type\": \"nf4\", "
      "\"bnb_4bit_use_double_quant\": true, \"llm_int8_enable_fp32_cpu_offload\": false, "
      "\"llm_int8_has_fp16_weight\": false, " +
          extra +
          ", \"llm_int8_threshold\": 6.0, \"load_in_4bit\": true, \"load_in_8bit\": false, "
          "\"quant_method\": \"bitsandbytes\"},");
}

TEST(BitsAndBytes, ReadsTransformersConfigs) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(bnb("nf4") + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->quantization.method, QuantMethod::kBitsAndBytes4);
  EXPECT_TRUE(a->quantization.double_quant);
  EXPECT_TRUE(a->quantization.converts("model.layers.0.mlp.gate_proj"));
  // vllm is_layer_skipped_bnb: a name without dots is any component, one with dots a prefix.
  Diagnostics skip_diags;
  Result<Architecture> skip = load_hf_config(
      bnb("skip",
          "\"llm_int8_skip_modules\": [\"lm_head\", \"mlp\", \"model.layers.1.self_attn\"]") +
          "/config.json",
      skip_diags);
  ASSERT_TRUE(skip.ok()) << skip_diags.to_string();
  const Quantization& q = skip->quantization;
  EXPECT_FALSE(q.converts("lm_head"));
  EXPECT_FALSE(q.converts("model.layers.7.mlp.down_proj"));
  EXPECT_FALSE(q.converts("model.layers.1.self_attn.k_proj"));
  EXPECT_TRUE(q.converts("model.layers.2.self_attn.k_proj"));
  EXPECT_TRUE(q.converts("model.layers.2.self_attn.mlp_proj"));
  // A listed name is a literal component: regular-expression characters in it match only
  // themselves.
  Diagnostics odd_diags;
  Result<Architecture> odd = load_hf_config(
      bnb("odd", "\"llm_int8_skip_modules\": [\"m.p\", \"(x+)*\"]") + "/config.json", odd_diags);
  ASSERT_TRUE(odd.ok()) << odd_diags.to_string();
  EXPECT_TRUE(odd->quantization.converts("model.layers.0.mlp.gate_proj"));
  EXPECT_FALSE(odd->quantization.converts("model.layers.0.(x+)*.gate_proj"));
  EXPECT_TRUE(odd->quantization.converts("model.layers.0.xx.gate_proj"));
}

// vLLM (bitsandbytes_loader.py, _dequantize_dq from v0.9.2) keeps a float32 absmax per 64
// weights: 122,683,840 B per layer besides its norms.
TEST(BitsAndBytes, VllmKeepsAFloat32AbsmaxPerBlock) {
  const std::int64_t bf16 =
      ledger_fact(family_ledger("vllm", kLlama3, 1, ""), "weights_logical_bytes");
  const Ledger l = family_ledger("vllm", bnb("nf4"), 1, "");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(layer_bytes(false), 122'683'840);
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"),
            bf16 - kLayers * 2 * kLinearParams + kLayers * layer_bytes(false));
}

// SGLang's loader keeps the double-quantized state: a uint8 absmax per 64 weights and the
// nested state per module.
TEST(BitsAndBytes, SglangKeepsTheNestedAbsmax) {
  const std::int64_t bf16 = ledger_fact(family_ledger("sglang", kLlama3, 1, "", "h200", "0.5.9"),
                                        "weights_logical_bytes");
  const Ledger l = family_ledger("sglang", bnb("nf4"), 1, "", "h200", "0.5.9");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"),
            bf16 - kLayers * 2 * kLinearParams + kLayers * layer_bytes(true));
}

// vLLM's in-flight bitsandbytes (--quantization bitsandbytes on the bfloat16 checkpoint):
// nf4 with double quant, dequantized once loaded, so each rank keeps what a pre-quantized
// checkpoint keeps for its own rows or columns; unlike those, it splits over TP.
TEST(BitsAndBytes, VllmQuantizesInFlightOverTensorParallelism) {
  const std::string flag = "    --quantization: bitsandbytes\n";
  const std::int64_t bf16 =
      ledger_fact(family_ledger("vllm", kLlama3, 1, ""), "weights_logical_bytes");
  const Ledger one = family_ledger("vllm", kLlama3, 1, flag);
  ASSERT_TRUE(one.fits());
  EXPECT_EQ(ledger_fact(one, "weights_logical_bytes"),
            bf16 - kLayers * 2 * kLinearParams + kLayers * layer_bytes(false));
  const std::int64_t bf16_tp2 =
      ledger_fact(family_ledger("vllm", kLlama3, 2, ""), "weights_logical_bytes");
  const Ledger two = family_ledger("vllm", kLlama3, 2, flag);
  ASSERT_TRUE(two.fits());
  std::int64_t half_layer = 0;
  for (std::int64_t n : kShards) half_layer += shard_bytes(n / 2, false);
  EXPECT_EQ(ledger_fact(two, "weights_logical_bytes"),
            bf16_tp2 - kLayers * kLinearParams + kLayers * half_layer);
  EXPECT_EQ(family_errors("sglang", kLlama3, "    --tp-size: 1\n" + flag),
            "f.yaml:7:21: --quantization bitsandbytes quantizes " + public_config_dir(kLlama3) +
                " online, which gpumem does not model; name a quantized checkpoint instead\n");
}

// Modules the skip list names keep their bfloat16 weights: every MLP here.
TEST(BitsAndBytes, SkippedModulesStayInTheModelDtype) {
  const std::int64_t bf16 =
      ledger_fact(family_ledger("vllm", kLlama3, 1, ""), "weights_logical_bytes");
  const Ledger l = family_ledger("vllm", bnb("mlp", "\"llm_int8_skip_modules\": [\"mlp\"]"), 1, "");
  ASSERT_TRUE(l.fits());
  std::int64_t attention = 0;
  for (int k = 0; k < 4; ++k) attention += kShards[k];
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"),
            bf16 - kLayers * 2 * attention +
                kLayers * (shard_bytes(kShards[0], false) + shard_bytes(kShards[1], false) +
                           shard_bytes(kShards[2], false) + shard_bytes(kShards[3], false)));
}

// vllm bitsandbytes.py _apply_bnb_4bit: over more than one token each MLP part's weight is
// dequantized to a bfloat16 temporary, and its product is a tensor of its own.
TEST(BitsAndBytes, VllmProfileHoldsTheDequantizedWeights) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(bnb("nf4") + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  const std::vector<vllm::Activation> acts =
      vllm::layer_activations(*a, vllm::ForwardShape{}, 0, 8192, 2, vllm::ActivationConstants{});
  std::int64_t gate = -1, down = -1;
  for (const vllm::Activation& t : acts) {
    if (t.name == "bnb_dequantized_gate_proj") gate = t.bytes.value();
    if (t.name == "bnb_dequantized_down_proj") down = t.bytes.value();
  }
  EXPECT_EQ(gate, kInter * kHidden * 2);
  EXPECT_EQ(down, kHidden * kInter * 2);
  for (const vllm::Activation& t :
       vllm::layer_activations(*a, vllm::ForwardShape{}, 0, 1, 2, vllm::ActivationConstants{})) {
    EXPECT_EQ(t.name.find("bnb_"), std::string::npos) << t.name;  // one token: gemv, no copy
  }
}

TEST(BitsAndBytes, WhatTheEnginesRefuse) {
  EXPECT_EQ(family_errors("vllm", bnb("nf4"), "    --tensor-parallel-size: 2\n", 2),
            "f.yaml:6:29: ValueError: Prequant BitsAndBytes models with tensor parallelism is "
            "not supported. Please try with pipeline parallelism.\n");
  EXPECT_EQ(family_errors("sglang", bnb("nf4"), "    --tp-size: 2\n", 2),
            "f.yaml:6:16: ValueError: Prequant BitsAndBytes models with TP is not "
            "supported.Please try with PP.\n");
  EXPECT_EQ(family_errors("sglang", bnb("nf4"), "    --tp-size: 1\n", 1, "0.5.6"),
            "f.yaml:4:12: bitsandbytes checkpoints with SGLang 0.5.6 are not modelled (from "
            "0.5.7: PR #15325's bitsandbytes method)\n");
  const std::string qwen3 =
      config_variant("Qwen--Qwen3-4B", "bnb-qwen3", "\"use_cache\": true,",
                     "\"use_cache\": true,\n  \"quantization_config\": {\"load_in_4bit\": true, "
                     "\"quant_method\": \"bitsandbytes\"},");
  EXPECT_EQ(family_errors("sglang", qwen3, "    --tp-size: 1\n"),
            "f.yaml:3:9: bitsandbytes checkpoints of Qwen3ForCausalLM in SGLang are not modelled "
            "(its model class is not known to declare bitsandbytes_stacked_params_mapping)\n");
  EXPECT_TRUE(family_ledger("vllm", qwen3, 1, "").fits());
  const std::pair<std::string, std::string> configs[] = {
      {config_variant(kLlama3, "bnb-8bit", "\"use_cache\": true,",
                      "\"use_cache\": true,\n  \"quantization_config\": {\"load_in_8bit\": true, "
                      "\"quant_method\": \"bitsandbytes\"},"),
       ":26:43: pre-quantized 8-bit bitsandbytes (LLM.int8) is not modelled\n"},
      {config_variant(kLlama3, "bnb-storage", "\"use_cache\": true,",
                      "\"use_cache\": true,\n  \"quantization_config\": {"
                      "\"bnb_4bit_quant_storage\": \"bfloat16\", \"quant_method\": "
                      "\"bitsandbytes\"},"),
       ":26:53: ValueError: Unsupported bnb_4bit_quant_storage: bfloat16\n"},
  };
  for (const auto& [dir, message] : configs) {
    EXPECT_EQ(config_dir_errors(dir), dir + "/config.json" + message);
  }
}

}  // namespace
}  // namespace gpumem
