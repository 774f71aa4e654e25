#include "catalog/scenario.h"

#include <gtest/gtest.h>

#include "engine/validate.h"

namespace gpumem {
namespace {

const GpuCatalog& gpus() {
  static const GpuCatalog catalog = [] {
    Diagnostics diags;
    Result<GpuCatalog> c = GpuCatalog::load(GPUMEM_SOURCE_DIR "/model/gpu", diags);
    EXPECT_TRUE(c.ok() && diags.empty()) << diags.to_string();
    return std::move(*c);
  }();
  return catalog;
}

const ModelCatalog& models() {
  static const ModelCatalog catalog = *ModelCatalog::open(GPUMEM_SOURCE_DIR "/model/llm");
  return catalog;
}

std::string errors_of(const std::string& text) {
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("s.yaml", text, gpus(), diags);
  if (s) validate_engine(*s, gpus(), models(), diags);
  return diags.to_string();
}

constexpr char kGood[] = R"(hardware:
  gpu: h200
  count: 2
engine:
  name: sglang
  version: 0.5.9
  args:
    --tp-size: 2
    --cuda-graph-bs: [1, 2, 4]
  env:
    NCCL_CUMEM_ENABLE: "0"
model: llama-3.1-8b-instruct
observed:
  free_before_weights: 93.00GiB
)";

TEST(Scenario, ReadsEveryField) {
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("dir/good.yaml", kGood, gpus(), diags);
  ASSERT_TRUE(s) << diags.to_string();
  EXPECT_EQ(s->name, "good");
  EXPECT_EQ(s->hardware.gpu, "h200");
  EXPECT_EQ(s->total_gpus(), 2);
  EXPECT_EQ(s->engine.arg("--tp-size")->values, std::vector<std::string>{"2"});
  EXPECT_TRUE(s->engine.arg("--cuda-graph-bs")->is_list);
  EXPECT_EQ(s->engine.env_var("NCCL_CUMEM_ENABLE")->value, "0");
  EXPECT_EQ(s->model.catalog_name, "llama-3.1-8b-instruct");
  EXPECT_EQ(s->observed.free_before_weights->value(), 99'857'989'632);
  validate_engine(*s, gpus(), models(), diags);
  EXPECT_TRUE(diags.empty()) << diags.to_string();
}

TEST(Scenario, HfConfigPathIsRelativeToTheFile) {
  Diagnostics diags;
  std::string text = kGood;
  text.replace(text.find("model: llama-3.1-8b-instruct"), 28,
               "model: {hf_config: cfg/config.json}");
  std::optional<Scenario> s = parse_scenario("scenarios/x.yaml", text, gpus(), diags);
  ASSERT_TRUE(s) << diags.to_string();
  EXPECT_EQ(s->model.hf_config_path, "scenarios/cfg/config.json");
}

TEST(Scenario, ReportsEveryErrorWithItsLocation) {
  const std::string text = R"(hardware:
  gpu: h2000
  count: 8
  preoccupied: {9: 2GiB, 1: 2}
engine:
  name: sglang
  version: 0.5.9
  args:
    --tp-size: 8
modle: llama
)";
  EXPECT_EQ(errors_of(text),
            "s.yaml:2:8: unknown GPU 'h2000'; did you mean 'h200'?\n"
            "s.yaml:4:17: GPU index 9 in 'preoccupied' is outside 0..7\n"
            "s.yaml:4:29: memory held on a GPU: size '2' has no unit; write it with one of B, KB, "
            "MB, GB, TB, KiB, MiB, GiB, TiB (e.g. 2GiB)\n"
            "s.yaml:1:1: missing key 'model' in the scenario\n"
            "s.yaml:10:1: unknown key 'modle' in the scenario; did you mean 'model'?\n");
}

// The three errors of the Foundation issue's "done when", in one file, word for word.
TEST(Scenario, UnknownKeySizeWithoutUnitAndTpNotDividingHeads) {
  const std::string text = R"(hardware:
  gpu: h100
  count: 3
  preocupied: {0: 1GiB}
engine:
  name: sglang
  version: 0.5.9
  args:
    --tp-size: 3
observed:
  free_before_weights: 93
model: llama-3.1-70b-instruct
)";
  EXPECT_EQ(errors_of(text),
            "s.yaml:4:3: unknown key 'preocupied' in 'hardware'; did you mean 'preoccupied'?\n"
            "s.yaml:11:24: 'free_before_weights': size '93' has no unit; write it with one of B, "
            "KB, MB, GB, TB, KiB, MiB, GiB, TiB (e.g. 93GiB)\n"
            "s.yaml:9:16: --tp-size 3 does not divide the 64 attention heads of "
            "llama-3.1-70b-instruct; SGLang stops with AssertionError: 64 is not divisible by "
            "3\n");
}

TEST(Scenario, EngineErrorsWithLocations) {
  const std::string text = R"(hardware: {gpu: h200, count: 8}
engine:
  name: sglang
  version: 0.5.9
  args:
    --tp-size: 4
    --mem-fraction-static: 1.5
    --cuda-graph-max-bs: many
    --kv-cache-dtype: fp8
    --enable-dp-atention: true
    -dp: 2
  env:
    SGLANG_CUSTOM_ALLREDUCE_ALGO: 3stage
  patches: [custom-allreduce-on-pcie]
model: llama
)";
  EXPECT_EQ(errors_of(text),
            "s.yaml:8:26: '--cuda-graph-max-bs' must be an integer, got 'many'\n"
            "s.yaml:9:23: '--kv-cache-dtype' must be one of auto, fp8_e4m3, fp8_e5m2, bf16, "
            "bfloat16, fp4_e2m1, mxfp8, nvfp4, fp4_mx_block16; got 'fp8'; did you mean "
            "'fp8_e4m3'?\n"
            "s.yaml:10:5: unknown SGLang flag '--enable-dp-atention'; did you mean "
            "'--enable-dp-attention'?\n"
            "s.yaml:11:5: unknown SGLang flag '-dp'; did you mean '--dp-size'?\n"
            "s.yaml:7:28: --mem-fraction-static must be between 0 and 1, got 1.5\n"
            "s.yaml:13:35: SGLANG_CUSTOM_ALLREDUCE_ALGO must be 1stage, oneshot, 2stage or "
            "twoshot, got '3stage'\n"
            "s.yaml:14:13: unknown SGLang patch 'custom-allreduce-on-pcie'; did you mean "
            "'custom-all-reduce-on-pcie'?\n"
            "s.yaml:1:30: the hardware has 8 GPUs but --tp-size 4 × --pp-size 1 × --dp-size 1 "
            "uses 4\n"
            "s.yaml:15:8: unknown model 'llama'; did you mean 'llama-3.1-8b-instruct'?\n");
}

TEST(Scenario, EmptyAndNonMappingFiles) {
  EXPECT_EQ(errors_of(""),
            "s.yaml:1:1: the scenario is empty; it needs 'hardware', 'engine' and 'model'\n");
  EXPECT_EQ(errors_of("- 1\n- 2\n"), "s.yaml:1:1: the scenario must be a mapping, got a list\n");
}

TEST(Scenario, MemoryAmountsAreAtMostWhatTheGpuHas) {
  // Found by fuzz_scenario: 2^63-1 B held on two GPUs, or observed free, overflowed the sums
  // of the start-up (signed overflow). An H200 has 150,754,820,096 B (nvidia-smi total).
  EXPECT_EQ(errors_of("hardware: {gpu: h200, count: 2, preoccupied: {1: 150754820097B}}\n"
                      "engine: {name: sglang, version: 0.5.9, args: {--tp-size: 2}}\n"
                      "model: llama-3.1-8b-instruct\n"),
            "s.yaml:1:50: memory held on GPU 1 (150,754,820,097 B) is more than one "
            "h200-sxm-141gb has (150,754,820,096 B)\n");
  EXPECT_EQ(errors_of("hardware: {gpu: h200, count: 1}\n"
                      "engine: {name: sglang, version: 0.5.9}\n"
                      "model: llama-3.1-8b-instruct\n"
                      "observed: {free_before_weights: 9223372036854775807B}\n"),
            "s.yaml:4:33: 'free_before_weights' (9,223,372,036,854,775,807 B) is more than one "
            "h200-sxm-141gb has (150,754,820,096 B)\n");
  EXPECT_EQ(errors_of("hardware: {gpu: h200, count: 2, preoccupied: {1: 150754820096B}}\n"
                      "engine: {name: sglang, version: 0.5.9, args: {--tp-size: 2}}\n"
                      "model: llama-3.1-8b-instruct\n"),
            "");
}

TEST(Scenario, EngineIntegerFlagsAreBounded) {
  // Found by fuzz_scenario: --max-running-requests 2^63-1 times the bytes of a request, and
  // --cuda-graph-bs or --max-num-seqs 2^63-1 times 2, overflowed in the engine models.
  EXPECT_EQ(errors_of("hardware: {gpu: h200, count: 1}\n"
                      "engine: {name: sglang, version: 0.5.9, args: {--max-running-requests: "
                      "2147483648, --cuda-graph-bs: [1, -9223372036854775808]}}\n"
                      "model: llama-3.1-8b-instruct\n"),
            "s.yaml:2:71: '--max-running-requests' must be an integer from -2147483647 to "
            "2147483647, got '2147483648'\n"
            "s.yaml:2:100: '--cuda-graph-bs' must be a list of integers from -2147483647 to "
            "2147483647, got '-9223372036854775808'\n");
  EXPECT_EQ(errors_of("hardware: {gpu: h200, count: 1}\n"
                      "engine: {name: vllm, version: 0.11.0, args: {--max-num-seqs: "
                      "99999999999999999999}}\n"
                      "model: llama-3.1-8b-instruct\n"),
            "s.yaml:2:62: '--max-num-seqs' must be an integer, got '99999999999999999999'\n");
  // Byte counts may be larger: up to 2^48 = 281,474,976,710,656.
  EXPECT_EQ(errors_of("hardware: {gpu: h200, count: 1}\n"
                      "engine: {name: vllm, version: 0.11.0, args: {--kv-cache-memory: "
                      "281474976710657}}\n"
                      "model: llama-3.1-8b-instruct\n"),
            "s.yaml:2:65: '--kv-cache-memory' must be an integer from -281474976710656 to "
            "281474976710656, got '281474976710657'\n");
}

// vLLM's KV budget may be below zero ("Available KV cache memory: -2.14 GiB"); no other
// measurement may.
TEST(Scenario, OnlyTheKvBudgetMayBeNegative) {
  const std::string text = R"(hardware: {gpu: h100, count: 1}
engine: {name: vllm, version: 0.10.2}
model: gpt-oss-120b
observed:
  kv_cache_memory: -2.14GiB
  non_torch_memory: -0.01GiB
)";
  Diagnostics diags;
  const std::optional<Scenario> s = parse_scenario("s.yaml", text, gpus(), diags);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->observed.kv_cache_memory->value(), -2297807503);  // -2.14 x 2^30, rounded
  EXPECT_EQ(diags.to_string(), "s.yaml:6:21: 'non_torch_memory': negative size '-0.01GiB'\n");
}

}  // namespace
}  // namespace gpumem
