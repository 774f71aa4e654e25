// Partial replays of real start-up logs (tests/data/engine-logs/) whose model or GPU is not
// known: the engine's budget arithmetic on the log's own figures, each logged figure it
// determines against it, the shortfall and the smallest flag change the figures say would
// start, and the exit code.
#include <gtest/gtest.h>

#include "calib/calibration_file.h"
#include "core/atomic_file.h"
#include "explain/explanation.h"
#include "explain/log_reader.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const std::string kDir = GPUMEM_SOURCE_DIR "/tests/data/engine-logs/";

std::optional<SimulationConstants> constants_for(const Scenario& s, Diagnostics&) {
  const GpuSpec* gpu = test_catalogs().gpus.find(s.hardware.gpu);
  if (gpu == nullptr) return std::nullopt;
  return default_constants(*gpu);
}

Explanation explain(const std::string& log_file, const std::string& gpu = "") {
  const ExplainContext ctx{test_catalogs().gpus, test_catalogs().models, constants_for, {}};
  Result<std::string> text = read_file(kDir + log_file, InputKind::kLog);
  EXPECT_TRUE(text.ok()) << log_file;
  Result<StartupLog> log = read_startup_log(text.value(), std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  ExplainOverrides o;
  o.gpu = gpu;
  return explain_log(log.value(), log_file, nullptr, o, ctx);
}

const FigureCheck& at(const RunExplanation& r, Quantity q, int line) {
  for (const FigureCheck& c : r.figures) {
    if (c.quantity == q && c.line == line) return c;
  }
  ADD_FAILURE() << "no " << quantity_name(q) << " at line " << line;
  static const FigureCheck kNone{};
  return kNone;
}

const std::string kModelUnknown =
    "the engine's budget from the log's figures (model unknown: KV tokens, weights and graphs "
    "are not predicted; name the model with --model to replay everything)";

// Available KV cache memory -2.14 GiB after 65.9651 GiB of weights, no model named: on the
// H100 (CUDA total 81,090 MiB = 79.19 GiB) at vLLM's default 0.9 the budget is 71.27 GiB, so
// what the log does not print takes 71.27 - 65.97 + 2.14 = 7.44 GiB, and 0.93 is the
// smallest utilization that leaves the KV cache anything: 73.65 - 73.42 = 0.23 GiB.
TEST(PartialReplay, VllmNegativeKvWithoutModel) {
  const Explanation e = explain("vllm-h100-x1-gpt-oss-120b-negative-kv.log", "h100-sxm-80gb");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  EXPECT_FALSE(r.replayed());
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_EQ(r.partial->label, kModelUnknown);
  EXPECT_FALSE(r.partial->fits);
  EXPECT_EQ(at(r, Quantity::kModelLoading, 9).verdict, Verdict::kPinned);
  EXPECT_EQ(at(r, Quantity::kAvailableKvMemory, 14).verdict, Verdict::kPinned);
  EXPECT_EQ(r.diagnosis,
            (std::vector<std::string>{
                "the log: start-up failed at line 15 (EngineCore_0 pid=5839): error",
                "the log's arithmetic: budget = total 79.19 GiB (h100-sxm-80gb's) x "
                "--gpu-memory-utilization 0.9 (vLLM 0.10.2's default) = 71.27 GiB",
                "the log's arithmetic: what it does not print (activation peak, non-torch memory) "
                "takes budget - weights - KV cache memory = 7.45 GiB",
                "the log's arithmetic: no memory left for the KV cache: -2.14 GiB available, "
                "short by 2.14 GiB and what one request of the maximum length needs (the model "
                "would say)",
                "agrees with the log: the start-up does not fit"}));
  EXPECT_EQ(r.advice,
            "by the log's own figures (each alone):\n"
            "  --gpu-memory-utilization 0.93: budget 73.65 GiB - non-KV memory 73.42 GiB (the "
            "log's budget less its KV cache memory) = 0.23 GiB for the KV cache: more than none; "
            "whether it holds one request of the maximum length needs the model (name it with "
            "--model)\n");
  EXPECT_EQ(explanation_exit_code(e), kExitDoesNotFit);
}

// Without the GPU the total is unknown: the KV figures of vLLM's own error still say the
// cache is 2.83 GiB short of one 131,072-token request, and 1.705 of 4.545 GiB (the worst
// case of the rounding) holds 49,168 tokens if every layer is full attention. The second start-up (another engine process) prints no
// figure: nothing to check, so the log's exit code stays 2.
TEST(PartialReplay, VllmKvTooSmallWithoutGpu) {
  const Explanation e = explain("vllm-h100-x1-gpt-oss-120b-no-cache-blocks.log");
  ASSERT_EQ(e.runs.size(), 2u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_EQ(r.partial->label,
            "the engine's budget from the log's figures (GPU unknown: what follows from the "
            "GPU's total memory is not predicted; name the GPU with --gpu to replay everything)");
  EXPECT_FALSE(r.partial->fits);
  EXPECT_EQ(at(r, Quantity::kAvailableKvMemory, 8).verdict, Verdict::kPinned);
  EXPECT_EQ(at(r, Quantity::kKvCacheNeeded, 39).verdict, Verdict::kPinned);
  EXPECT_EQ(r.diagnosis,
            (std::vector<std::string>{
                "the log: start-up failed at line 9 (EngineCore_DP0 pid=6880): error",
                "the log's arithmetic: one request of the maximum length needs 4.54 GiB of KV "
                "cache, 1.71 GiB is available: short by 2.83 GiB",
                "agrees with the log: the start-up does not fit"}));
  EXPECT_EQ(r.advice,
            "by the log's own figures (each alone):\n"
            "  --gpu-memory-utilization: not determined (the GPU's total memory is not known: "
            "name the GPU with --gpu)\n"
            "  --max-model-len 49168: 1.71 GiB of KV cache memory at 4.54 GiB per 131072 tokens, "
            "if every layer is full attention (sliding-window layers need the same at any "
            "length: with them it holds less)\n");
  EXPECT_FALSE(e.runs[1].partial.has_value());
  EXPECT_EQ(e.runs[1].diagnosis,
            std::vector<std::string>{"the log: start-up failed at line 23 (EngineCore_DP0 "
                                     "pid=223840): no memory left for the KV cache"});
  EXPECT_EQ(explanation_exit_code(e), kExitBadInput);
}

// SGLang: "Load weight end ... avail mem=12.25 GB, mem usage=125.65 GB" and the error's
// --mem-fraction-static=0.88: F = 137.90 GiB, rest = 12.25 - 137.90 x 0.12 = -4.30 GiB; the
// worst case of the rounding (F 137.91, A 12.245) needs 0.92, which leaves 1.22 GiB.
TEST(PartialReplay, SglangNotEnoughMemoryWithoutModel) {
  const Explanation e = explain("sglang-h200-x8-deepseek-v4-pro-fp8-no-kv-room.log", "h200");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_EQ(r.partial->label, kModelUnknown);
  EXPECT_FALSE(r.partial->fits);
  EXPECT_EQ(at(r, Quantity::kFreeAfterWeights, 8).verdict, Verdict::kPinned);
  EXPECT_EQ(at(r, Quantity::kWeightUsage, 8).verdict, Verdict::kPinned);
  EXPECT_EQ(r.diagnosis,
            (std::vector<std::string>{
                "the log: start-up failed at line 10: the KV pool would be empty (Not enough "
                "memory)",
                "the log's arithmetic: rest = A - F x (1 - 0.88) = 12.25 - 137.90 x 0.12 = "
                "-4.30 GiB for the KV pool (F = A + weights took = 12.25 + 125.65)",
                "the log's arithmetic: the KV pool would be empty: A is 12.25 GiB, below the "
                "16.55 GiB SGLang keeps back of F; short by 4.30 GiB",
                "agrees with the log: the start-up does not fit"}));
  EXPECT_EQ(r.advice,
            "by the log's own figures:\n"
            "  --mem-fraction-static 0.92: rest = 1.22 GiB for the KV pool (how many tokens it "
            "holds needs the model: name it with --model); it keeps back less of F for "
            "activations and CUDA graphs\n");
  EXPECT_EQ(explanation_exit_code(e), kExitDoesNotFit);
}

// vLLM V0 prints every term: 8.00 GiB x 0.70 = 5.60 GiB as logged, and 5.60 - 5.2032 - 1.42
// - 0.03 = -1.05 GiB as logged; 0 GPU blocks follow. 0.84 budgets 6.72 GiB, above the
// 6.665 GiB of non-KV memory (5.60 + 1.05 and the rounding of both and of the total).
TEST(PartialReplay, VllmV0EveryTermPrinted) {
  const Explanation e = explain("vllm-rtx4060-x1-qwen2.5-7b-v0-negative-kv.log");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_FALSE(r.partial->fits);
  const FigureCheck& budget = at(r, Quantity::kRequestedMemory, 8);
  EXPECT_EQ(budget.verdict, Verdict::kMatch);
  EXPECT_NEAR(*budget.predicted, 5.60, 1e-9);
  EXPECT_NEAR(budget.tolerance, 0.0135, 1e-9);  // 0.005 + 0.005 + 0.005 x 0.70
  const FigureCheck& kv = at(r, Quantity::kAvailableKvMemory, 9);
  EXPECT_EQ(kv.verdict, Verdict::kMatch);
  EXPECT_NEAR(*kv.predicted, -1.0532, 1e-4);
  EXPECT_EQ(at(r, Quantity::kGpuBlocks, 10).verdict, Verdict::kNotPredicted);
  EXPECT_EQ(r.diagnosis.back(), "agrees with the log: 0 GPU blocks (line 10), the start-up does "
                                "not fit");
  EXPECT_EQ(r.advice,
            "by the log's own figures (each alone):\n"
            "  --gpu-memory-utilization 0.84: budget 6.72 GiB - non-KV memory 6.66 GiB (the "
            "log's budget less its KV cache memory) = 0.05 GiB for the KV cache: more than none; "
            "whether it holds one request of the maximum length needs the model (name it with "
            "--model)\n");
}

}  // namespace
}  // namespace gpumem
