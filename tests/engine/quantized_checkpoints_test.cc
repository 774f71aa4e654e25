// Quantized checkpoints in both engines. NVFP4 (engine/vllm/plan.cc nvfp4_layout,
// engine/sglang/plan.cc check_nvfp4): which layout each engine keeps on which GPU and
// release, seen in the bytes the weights hold, and the forms each engine refuses. AutoRound:
// the --quantization names each engine takes for it. The model is the published
// Mistral-Nemo-Instruct-2407 config with a quantization block (lm_head excluded): 40 layers
// of 272,629,760 linear weights, 7 fused parts and 4 linears per layer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "catalog/scenario.h"
#include "simulate/simulate.h"
#include "support/quantized_config.h"
#include "support/scratch_dir.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

// A snapshot directory holding the Nemo config with `quantization` as its block.
std::string nemo_snapshot(const std::string& name, const std::string& quantization) {
  const std::string json =
      quantized_config_text("mistralai--Mistral-Nemo-Instruct-2407", quantization);
  const std::filesystem::path dir = scratch_dir() / name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << json;
  return dir.string();
}

const std::string& compressed_tensors_nemo() {
  static const std::string dir =
      nemo_snapshot("nemo-nvfp4-compressed-tensors",
                    R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
          "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"],
          "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
                      "group_size": 16},
          "input_activations": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
                                "group_size": 16}}}})");
  return dir;
}

const std::string& weight_only_nemo() {
  static const std::string dir =
      nemo_snapshot("nemo-nvfp4a16-compressed-tensors",
                    R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
          "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"],
          "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
                      "group_size": 16}}}})");
  return dir;
}

const std::string& modelopt_nemo() {
  static const std::string dir =
      nemo_snapshot("nemo-nvfp4-modelopt",
                    R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
          "exclude_modules": ["lm_head"]})");
  return dir;
}

// A ModelOpt FP8 checkpoint calibrated for an FP8 KV cache (kv_cache_quant_algo, as
// nvidia/Llama-3.1-70B-Instruct-FP8's hf_quant_config.json has it).
const std::string& modelopt_fp8_kv_nemo() {
  static const std::string dir = nemo_snapshot("nemo-fp8-kv-modelopt",
                                               R"({"quant_method": "modelopt", "quant_algo": "FP8",
          "kv_cache_quant_algo": "FP8", "exclude_modules": ["lm_head"]})");
  return dir;
}

// The diagnostics and, when it ran, the weights one GPU holds and its KV cache dtype.
struct Outcome {
  std::string errors;
  std::int64_t weights = -1;
  std::string kv_cache_dtype;
};

Outcome run(const std::string& engine, const std::string& version, const std::string& gpu,
            const std::string& model, const std::string& args = "{}") {
  const std::string text = "hardware: {gpu: " + gpu + ", count: 1}\nengine: {name: " + engine +
                           ", version: " + version + ", args: " + args + "}\nmodel: " + model +
                           "\n";
  Diagnostics diags;
  Outcome r;
  std::optional<Scenario> s = parse_scenario("f.yaml", text, test_catalogs().gpus, diags);
  if (s && diags.empty()) {
    std::optional<Ledger> l = simulate_scenario(
        *s, SimulationInputs{test_catalogs().gpus, test_catalogs().models, {}}, diags);
    if (l && !l->gpus.empty()) {
      const Fact* f = l->gpus.front().fact("weights_logical_bytes");
      if (f != nullptr) r.weights = std::get<Bytes>(f->value).value();
      for (const Fact& resolved : l->facts) {
        if (resolved.id == "kv_cache_dtype") {
          r.kv_cache_dtype = std::get<std::string>(resolved.value);
        }
      }
    }
  }
  r.errors = diags.to_string();
  return r;
}

TEST(QuantizedCheckpoints, Nvfp4VllmKeepsOneScaleCopyFrom0_10_2AndMarlinBeforeBlackwell) {
  const Outcome b200 = run("vllm", "0.21.0", "b200", modelopt_nemo());
  const Outcome b200_old = run("vllm", "0.10.1", "b200", modelopt_nemo());
  const Outcome h100 = run("vllm", "0.21.0", "h100-sxm-80gb", modelopt_nemo());
  ASSERT_EQ(b200.errors + b200_old.errors + h100.errors, "");
  // vLLM 0.10.1 kept the loaded scales (1/16 byte a weight) and the per-part global scales
  // beside the swizzled copy.
  EXPECT_EQ(b200_old.weights - b200.weights, 40 * (272'629'760 / 16 + 2 * 4 * 7));
  // Marlin on the H100: a workspace of 132 int32 and one global scale per linear, where
  // CUTLASS keeps two scalars.
  EXPECT_EQ(h100.weights - b200.weights, 40 * 4 * (4 * 132 + 4 - 8));
}

// vllm modelopt.py ModelOptNvFp4Config.override_quantization_method makes a ModelOpt NVFP4
// checkpoint's method modelopt_fp4 whatever the flag says, so the generic modelopt passes
// (club-3090's Qwen3.6 NVFP4 composes pass it); an FP8 method name does not.
TEST(QuantizedCheckpoints, Nvfp4VllmTakesTheGenericModelOptName) {
  const Outcome plain = run("vllm", "0.21.0", "b200", modelopt_nemo());
  const Outcome generic =
      run("vllm", "0.21.0", "b200", modelopt_nemo(), "{--quantization: modelopt}");
  ASSERT_EQ(plain.errors + generic.errors, "");
  EXPECT_EQ(generic.weights, plain.weights);
  EXPECT_NE(run("vllm", "0.21.0", "b200", modelopt_nemo(), "{--quantization: fp8}").errors, "");
}

// vLLM's --kv-cache-dtype auto takes a ModelOpt checkpoint's kv_cache_quant_algo from
// v0.14.0 (PR #30785); SGLang has since the oldest modelled release.
TEST(QuantizedCheckpoints, AutoKvCacheDtypeFollowsAModelOptCheckpoint) {
  const Outcome now = run("vllm", "0.21.0", "h100-sxm-80gb", modelopt_fp8_kv_nemo());
  const Outcome before = run("vllm", "0.11.1", "h100-sxm-80gb", modelopt_fp8_kv_nemo());
  const Outcome asked = run("vllm", "0.21.0", "h100-sxm-80gb", modelopt_fp8_kv_nemo(),
                            "{--kv-cache-dtype: bfloat16}");
  const Outcome sglang = run("sglang", "0.4.6", "h100-sxm-80gb", modelopt_fp8_kv_nemo());
  ASSERT_EQ(now.errors + before.errors + asked.errors + sglang.errors, "");
  EXPECT_EQ(now.kv_cache_dtype, "auto (fp8_e4m3: the checkpoint's kv_cache_quant_algo)");
  EXPECT_EQ(before.kv_cache_dtype, "auto (torch.bfloat16)");
  EXPECT_EQ(asked.kv_cache_dtype, "bfloat16");
  EXPECT_EQ(sglang.kv_cache_dtype, "torch.float8_e4m3fn");
}

TEST(QuantizedCheckpoints, Nvfp4SglangServesNvfp4OnBlackwellOnly) {
  const Outcome b200 = run("sglang", "0.5.9", "b200", modelopt_nemo());
  EXPECT_EQ(b200.errors, "");
  EXPECT_GT(b200.weights, 0);
  EXPECT_EQ(run("sglang", "0.5.9", "h200", modelopt_nemo()).errors,
            "f.yaml:1:17: h200-sxm-141gb is not a Blackwell GPU: SGLang serves NVFP4 weights "
            "natively from compute capability 10.0, and its Marlin fallback for older GPUs (PR "
            "#19652) is not modelled\n");
  // SGLang's ModelOpt path keeps the swizzled scales beside the loaded ones and the
  // per-part global scales; its compressed-tensors path replaces them.
  const Outcome ct = run("sglang", "0.5.9", "b200", compressed_tensors_nemo());
  EXPECT_EQ(ct.errors, "");
  EXPECT_EQ(b200.weights - ct.weights, 40 * (272'629'760 / 16 + 2 * 4 * 7));
}

TEST(QuantizedCheckpoints, Nvfp4WeightOnlyNvfp4RunsOnMarlinInVllmAndIsRefusedBySglang) {
  // vLLM's compressed-tensors W4A16 scheme takes Marlin on every GPU: on the B200 (148 SMs)
  // each linear keeps a global scale and a workspace of 148 int32 instead of CUTLASS's
  // two scalars.
  const Outcome a16 = run("vllm", "0.21.0", "b200", weight_only_nemo());
  const Outcome w4a4 = run("vllm", "0.21.0", "b200", compressed_tensors_nemo());
  ASSERT_EQ(a16.errors + w4a4.errors, "");
  EXPECT_EQ(a16.weights - w4a4.weights, 40 * 4 * (4 * 148 + 4 - 8));
  EXPECT_EQ(run("sglang", "0.5.9", "b200", weight_only_nemo()).errors,
            "f.yaml:3:8: compressed-tensors NVFP4 without activation scales (W4A16) in SGLang "
            "is not modelled\n");
}

TEST(QuantizedCheckpoints, AutoRoundTakesItsOwnQuantizationName) {
  static const std::string auto_round = nemo_snapshot(
      "nemo-auto-round", R"({"quant_method": "auto-round", "bits": 4, "group_size": 128,
                             "sym": true, "block_name_to_quantize": "model.layers"})");
  const Outcome plain = run("vllm", "0.21.0", "h100-sxm-80gb", auto_round);
  const Outcome named =
      run("vllm", "0.21.0", "h100-sxm-80gb", auto_round, "{--quantization: auto_round}");
  ASSERT_EQ(plain.errors + named.errors, "");
  EXPECT_EQ(named.weights, plain.weights);
  EXPECT_EQ(
      run("sglang", "0.5.9", "h100-sxm-80gb", auto_round, "{--quantization: auto-round}").errors,
      "");
  EXPECT_EQ(
      run("vllm", "0.21.0", "h100-sxm-80gb", auto_round, "{--quantization: awq_marlin}").errors,
      "f.yaml:2:62: --quantization awq_marlin does not name the checkpoint's gptq "
      "quantization as gpumem models it (vLLM: \"Quantization method specified in the "
      "model config does not match the quantization method specified in the "
      "`quantization` argument\")\n");
}

TEST(QuantizedCheckpoints, W8a8Fp8TakesMarlinBeforeAda) {
  // compressed-tensors FP8, one scale per tensor, dynamic activations. On the A100 (compute
  // capability 8.0, 108 SMs) vLLM runs it on Marlin: per linear a [1, rows] bfloat16 scale
  // row and 108 int32 of workspace, where the H100 keeps one float32 scale.
  static const std::string fp8 = nemo_snapshot(
      "nemo-w8a8-fp8", R"({"quant_method": "compressed-tensors", "format": "float-quantized",
          "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"],
          "weights": {"num_bits": 8, "type": "float", "strategy": "tensor"},
          "input_activations": {"num_bits": 8, "type": "float", "strategy": "token",
                                "dynamic": true}}}})");
  const Outcome a100 = run("vllm", "0.21.0", "a100-80gb", fp8);
  const Outcome h100 = run("vllm", "0.21.0", "h100-sxm-80gb", fp8);
  ASSERT_EQ(a100.errors + h100.errors, "");
  EXPECT_EQ(a100.weights - h100.weights,
            40 * (2 * (6144 + 5120 + 28672 + 5120) + 4 * 4 * 108 - 4 * 4));
  EXPECT_EQ(run("sglang", "0.5.9", "a100-80gb", fp8).errors,
            "f.yaml:1:17: a100-80gb has no FP8 tensor cores (compute capability below 8.9): "
            "SGLang's fallback for compressed-tensors FP8 weights is not modelled\n");
  EXPECT_EQ(run("sglang", "0.5.9", "h100-sxm-80gb", fp8).errors, "");
}

}  // namespace
}  // namespace gpumem
