// fbgemm_fp8 checkpoints (Meta's FP8 Llamas: quant_method fbgemm_fp8, activation_scale_ub,
// modules_to_not_convert naming layer 0's projections one by one) in both engines, on
// Meta-Llama-3-8B-Instruct's published config with such a block. Every expected byte count is
// the bfloat16 model's, less the converted linears' two bytes per weight, plus what each
// engine keeps per converted linear: one byte per weight, a float32 scale per output row and
// the activation bound as a float32 scalar (on Marlin, below FP8 tensor cores: bfloat16
// scales and an int32 workspace per SM instead).
#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kLlama3 = "meta-llama--Meta-Llama-3-8B-Instruct";
constexpr std::int64_t kLayers = 32;
constexpr std::int64_t kHidden = 4096;
// qkv_proj (32 + 2 x 8 heads of 128) and gate_up_proj (2 x 14,336): fused; o_proj, down_proj.
constexpr std::int64_t kQkvRows = 6144;
constexpr std::int64_t kGateUpRows = 28672;
constexpr std::int64_t kFusedParams = kHidden * (kQkvRows + kGateUpRows);
constexpr std::int64_t kSingleParams = kHidden * kHidden + 14336 * kHidden;
constexpr std::int64_t kSingleRows = kHidden + kHidden;

// Layer 0's seven projections kept in bfloat16, by their checkpoint names.
std::string fbgemm(const std::string& name, const std::string& keys) {
  std::string list;
  for (const char* module : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                             "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}) {
    list += std::string(list.empty() ? "" : ", ") + "\"model.layers.0." + module + "\"";
  }
  return config_variant(kLlama3, name, "\"use_cache\": true,",
                        "\"use_cache\": true,\n  \"quantization_config\": {" + keys +
                            "\"modules_to_not_convert\": [" + list +
                            "], \"quant_method\": \"fbgemm_fp8\"},");
}

std::string meta_fp8() { return fbgemm("fbgemm-meta", "\"activation_scale_ub\": 1200.0, "); }

// What one converted linear of `params` weights and `rows` output rows keeps beyond one byte
// a weight: a float32 scale per row and the float32 bound.
std::int64_t fp8_extra(std::int64_t rows) { return 4 * rows + 4; }

TEST(FbgemmFp8, EachEngineSkipsLayerZeroItsOwnWay) {
  // vLLM (fused shards all listed: skipped) keeps layer 0 in bfloat16 entirely.
  const std::int64_t vllm_bf16 =
      ledger_fact(family_ledger("vllm", kLlama3, 1, ""), "weights_logical_bytes");
  const Ledger vllm = family_ledger("vllm", meta_fp8(), 1, "");
  ASSERT_TRUE(vllm.fits());
  const std::int64_t per_layer = kFusedParams + kSingleParams + fp8_extra(kQkvRows) +
                                 fp8_extra(kGateUpRows) + fp8_extra(kHidden) + fp8_extra(kHidden);
  EXPECT_EQ(
      ledger_fact(vllm, "weights_logical_bytes"),
      vllm_bf16 - (kLayers - 1) * 2 * (kFusedParams + kSingleParams) + (kLayers - 1) * per_layer);
  // SGLang compares the fused names, which the list does not hold: layer 0's qkv_proj and
  // gate_up_proj are quantized, its o_proj and down_proj are not.
  const std::int64_t sglang_bf16 =
      ledger_fact(family_ledger("sglang", kLlama3, 1, ""), "weights_logical_bytes");
  const Ledger sglang = family_ledger("sglang", meta_fp8(), 1, "");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"),
            sglang_bf16 - (kLayers - 1) * 2 * (kFusedParams + kSingleParams) +
                (kLayers - 1) * per_layer - 2 * kFusedParams + kFusedParams + fp8_extra(kQkvRows) +
                fp8_extra(kGateUpRows));
}

// Below FP8 tensor cores vLLM repacks every converted linear for Marlin: the scales become a
// bfloat16 row, a workspace of one int32 per SM (108 on an A100) is added and the bound is
// dropped. SGLang's fallback is refused by name.
TEST(FbgemmFp8, AnA100RunsVllmOnMarlinAndIsRefusedInSglang) {
  const std::int64_t bf16 =
      ledger_fact(family_ledger("vllm", kLlama3, 1, "", "a100-80gb"), "weights_logical_bytes");
  const Ledger vllm = family_ledger("vllm", meta_fp8(), 1, "", "a100-80gb");
  ASSERT_TRUE(vllm.fits());
  const std::int64_t per_layer =
      kFusedParams + kSingleParams + 2 * (kQkvRows + kGateUpRows + kSingleRows) + 4 * (4 * 108);
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"),
            bf16 - (kLayers - 1) * 2 * (kFusedParams + kSingleParams) + (kLayers - 1) * per_layer);
  EXPECT_EQ(family_errors("sglang", meta_fp8(), "    --tp-size: 1\n", 1, "", "a100-80gb"),
            "f.yaml:1:17: a100-80gb has no FP8 tensor cores (compute capability below 8.9): "
            "SGLang's fallback for fbgemm_fp8 weights is not modelled\n");
}

// Both keys are required, as the engines' from_config reads them; experts have no fbgemm_fp8
// method in either engine.
TEST(FbgemmFp8, MissingKeysAndExpertsAreRefused) {
  const std::string no_bound = fbgemm("fbgemm-no-bound", "");
  EXPECT_NE(config_dir_errors(no_bound).find(
                "Cannot find any of ['activation_scale_ub'] in the model's quantization config."),
            std::string::npos)
      << config_dir_errors(no_bound);
  const std::string moe = config_variant(
      "Qwen--Qwen3-30B-A3B-Instruct-2507", "fbgemm-moe", "\"use_cache\": true,",
      "\"use_cache\": true,\n  \"quantization_config\": {\"activation_scale_ub\": 1200.0, "
      "\"modules_to_not_convert\": null, \"quant_method\": \"fbgemm_fp8\"},");
  EXPECT_NE(family_errors("vllm", moe, "    --tensor-parallel-size: 1\n")
                .find("model.layers.0.mlp.experts: fbgemm_fp8 has no method for fused experts; "
                      "the engines stop at this layer"),
            std::string::npos)
      << family_errors("vllm", moe, "    --tensor-parallel-size: 1\n");
}

}  // namespace
}  // namespace gpumem
