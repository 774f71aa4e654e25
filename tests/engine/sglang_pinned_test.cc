// With F and A pinned (the free memory a real run measured before and after loading the
// weights), the simulated SGLang start-up sizes the KV cache exactly as SGLang does. The
// expected token counts were computed independently with CPython, using SGLang v0.5.9's
// expressions: int((A/2**30 - F/2**30 * (1 - mfs)) * (1 << 30)) // cell_size.
#include <gtest/gtest.h>

#include "catalog/scenario.h"
#include "engine/validate.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const TestCatalogs& catalogs() { return test_catalogs(); }

Ledger simulate(const std::string& text) {
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("pinned.yaml", text, catalogs().gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string();
  std::optional<Ledger> l =
      simulate_scenario(*s, SimulationInputs{catalogs().gpus, catalogs().models, {}}, diags);
  EXPECT_TRUE(l && diags.empty()) << diags.to_string();
  return *l;
}

std::int64_t fact(const Ledger& l, std::string_view key) {
  const Fact* f = l.gpus.front().fact(key);
  EXPECT_NE(f, nullptr) << key;
  return f == nullptr ? -1 : std::get<std::int64_t>(f->value);
}

std::string scenario(const std::string& gpu, int count, int nodes, const std::string& model, int tp,
                     const std::string& mfs, const std::string& f, const std::string& a,
                     const std::string& extra_args = "") {
  return "hardware: {gpu: " + gpu + ", count: " + std::to_string(count) +
         ", nodes: " + std::to_string(nodes) +
         "}\nengine:\n  name: sglang\n  version: 0.5.9\n"
         "  args:\n    --tp-size: " +
         std::to_string(tp) + "\n    --mem-fraction-static: " + mfs + "\n" + extra_args +
         "model: " + model + "\nobserved:\n  free_before_weights: " + f +
         "\n  free_after_weights: " + a + "\n";
}

TEST(SglangPinned, MhaLlama8b) {
  const Ledger l =
      simulate(scenario("h200", 1, 1, "llama-3.1-8b-instruct", 1, "0.85", "140GiB", "120GiB"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 131072);  // 8 x (128 + 128) x 32 x 2
  EXPECT_EQ(fact(l, "kv_tokens"), 811008);
}

TEST(SglangPinned, GqaWithReplicatedKvHeads) {
  // TP 16 over 8 KV heads: each rank keeps max(1, 8 // 16) = 1 head.
  const Ledger l =
      simulate(scenario("h100", 8, 2, "llama-3.1-70b-instruct", 16, "0.88", "76GiB", "66GiB"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 40960);
  EXPECT_EQ(fact(l, "kv_tokens"), 1491075);
}

TEST(SglangPinned, MlaDeepseekV3) {
  const Ledger l = simulate(scenario("h200", 8, 1, "deepseek-v3", 8, "0.88", "130GiB", "45GiB"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 70272);  // (512 + 64) x 61 x 2
  EXPECT_EQ(fact(l, "kv_tokens"), 449226);
}

TEST(SglangPinned, HybridSlidingWindowGptOss) {
  const Ledger l = simulate(scenario("h200", 1, 1, "gpt-oss-20b", 1, "0.8", "140GiB", "126GiB"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 49152);
  // profile 2,140,842 tokens; full = int(T x 49152 / (24576 + 0.8 x 24576)); swa = int(0.8 full)
  EXPECT_EQ(fact(l, "profiled_tokens"), 2140842);
  EXPECT_EQ(fact(l, "kv_tokens"), 2378713);
  EXPECT_EQ(fact(l, "swa_kv_tokens"), 1902970);
}

TEST(SglangPinned, Fp8KvCache) {
  const Ledger l = simulate(scenario("h200", 1, 1, "qwen2.5-7b-instruct", 1, "0.7", "140GiB",
                                     "125GiB", "    --kv-cache-dtype: fp8_e4m3\n"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 28672);  // 4 x (128 + 128) x 28 x 1
  EXPECT_EQ(fact(l, "kv_tokens"), 3108278);
}

TEST(SglangPinned, WorkedExampleScenarioPinsFAndSubtractsTheSimulatedWeights) {
  // scenarios/h20x8-llama-3.1-70b-worked-example.yaml pins F = 93.00 GiB only: A is F minus
  // what the simulated weights took (17,640,734,720 B of parameters, 64 MiB RoPE cache and the
  // allocator's rounding), and mfs 0.55 gives cell 40,960 B.
  Diagnostics diags;
  std::optional<Scenario> s =
      load_scenario(GPUMEM_SOURCE_DIR "/scenarios/h20x8-llama-3.1-70b-worked-example.yaml",
                    catalogs().gpus, diags);
  ASSERT_TRUE(s) << diags.to_string();
  std::optional<Ledger> l =
      simulate_scenario(*s, SimulationInputs{catalogs().gpus, catalogs().models, {}}, diags);
  ASSERT_TRUE(l) << diags.to_string();
  EXPECT_EQ(fact(*l, "kv_cell_bytes"), 40960);
  EXPECT_EQ(std::get<Bytes>(l->gpus.front().fact("weights_logical_bytes")->value).value(),
            17'640'734'720 + 67'108'864);
  EXPECT_EQ(fact(*l, "req_to_token_rows"), 3548);
  EXPECT_EQ(fact(*l, "max_running_requests"), 3548);
}

TEST(SglangErrors, MorePipelineStagesThanLayers) {
  // 64 stages of Llama-3.1-8B's 32 layers: stages 32..63 would get no layer and a zero KV
  // cell size, which divided the token count by zero (SIGFPE) before the plan refused it.
  const std::string text =
      "hardware: {gpu: h200, count: 8, nodes: 8}\n"
      "engine:\n  name: sglang\n  version: 0.5.9\n  args:\n    --pp-size: 64\n"
      "model: llama-3.1-8b-instruct\n";
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("pp.yaml", text, catalogs().gpus, diags);
  ASSERT_TRUE(s && diags.empty()) << diags.to_string();
  validate_engine(*s, catalogs().gpus, catalogs().models, diags);
  EXPECT_EQ(diags.to_string(),
            "pp.yaml:6:16: --pp-size 64 is more than the 32 layers of llama-3.1-8b-instruct; a "
            "pipeline stage would hold no layer\n");
  diags = Diagnostics{};
  EXPECT_FALSE(
      simulate_scenario(*s, SimulationInputs{catalogs().gpus, catalogs().models, {}}, diags));
  EXPECT_EQ(diags.count(), 1u);
}

std::string validation_errors(const std::string& args) {
  const std::string text =
      "hardware: {gpu: h200, count: 8}\nengine:\n  name: sglang\n"
      "  version: 0.5.9\n  args: {" +
      args + "}\nmodel: llama-3.1-8b-instruct\n";
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("layout.yaml", text, catalogs().gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string();
  validate_engine(*s, catalogs().gpus, catalogs().models, diags);
  return diags.to_string();
}

TEST(SglangErrors, ParallelCountsAreBoundedAndTheirProductDoesNotOverflow) {
  EXPECT_EQ(validation_errors("--tp-size: 5000"),
            "layout.yaml:5:21: --tp-size must be at most 4096, got 5000\n"
            "layout.yaml:1:30: the hardware has 8 GPUs but --tp-size 1 × --pp-size 1 × "
            "--dp-size 1 uses 1\n");
  // 4096^3 = 68,719,476,736 GPUs: an int product overflowed (UB) before it was 64-bit.
  EXPECT_EQ(validation_errors("--tp-size: 4096, --pp-size: 4096, --dp-size: 4096"),
            "layout.yaml:1:30: the hardware has 8 GPUs but --tp-size 4096 × --pp-size 4096 × "
            "--dp-size 4096 uses 68719476736\n"
            "layout.yaml:5:21: --tp-size 4096 does not divide the 32 attention heads of "
            "llama-3.1-8b-instruct; SGLang stops with AssertionError: 32 is not divisible by "
            "4096\n");
}

// A flag whose memory effect is not modelled is refused by name: answering as if it were not
// there would be silently optimistic (SGLang's --quantization fp8 used to change nothing).
TEST(SglangErrors, FlagsWhoseMemoryIsNotModelledAreRefusedByName) {
  EXPECT_EQ(validation_errors("--tp-size: 8, --quantization: fp8"),
            "layout.yaml:5:40: --quantization fp8 quantizes llama-3.1-8b-instruct online, which "
            "gpumem does not model; name a quantized checkpoint instead\n");
  EXPECT_EQ(validation_errors("--tp-size: 8, --enable-flashinfer-allreduce-fusion: true"),
            "layout.yaml:5:62: --enable-flashinfer-allreduce-fusion allocates FlashInfer's fused "
            "all-reduce workspace, which gpumem does not model\n");
  EXPECT_EQ(validation_errors("--tp-size: 8, --speculative-algorithm: NEXTN"),
            "layout.yaml:5:49: --speculative-algorithm NEXTN drafts with the checkpoint's own MTP "
            "layers, which gpumem does not model; give the MTP head with "
            "--speculative-draft-model-path\n");
}

}  // namespace
}  // namespace gpumem
