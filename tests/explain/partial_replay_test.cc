// Partial replays of real start-up logs (tests/data/engine-logs/) whose model or GPU is not
// known: the engine's budget arithmetic on the log's own figures, each logged figure it
// determines against it, the shortfall and the smallest flag change the figures say would
// start, and the exit code.
#include <gtest/gtest.h>

#include <algorithm>

#include "calib/calibration_file.h"
#include "core/atomic_file.h"
#include "explain/explanation.h"
#include "explain/log_reader.h"
#include "support/published_constants.h"
#include "support/test_catalogs.h"
#include "tests/explain/explain_case.h"

namespace gpumem {
namespace {

const std::string kDir = GPUMEM_SOURCE_DIR "/tests/data/engine-logs/";

Explanation explain(const std::string& log_file, const std::string& gpu = "") {
  const ExplainContext ctx{test_catalogs().gpus, test_catalogs().models, published_constants, {}};
  Result<std::string> text = read_file(kDir + log_file, InputKind::kLog);
  EXPECT_TRUE(text.ok()) << log_file;
  Result<StartupLog> log = read_startup_log(text.value(), std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  ExplainOverrides o;
  o.gpu = gpu;
  return explain_log(log.value(), log_file, nullptr, o, ctx);
}

// The same, with every `from` in the log's text read as `to`: a log whose checkpoint name would
// otherwise let explain replay it in full (a quantized variant of a catalog model).
Explanation explain_renamed(const std::string& log_file, const std::string& gpu,
                            const std::string& from, const std::string& to) {
  const ExplainContext ctx{test_catalogs().gpus, test_catalogs().models, published_constants, {}};
  Result<std::string> text = read_file(kDir + log_file, InputKind::kLog);
  EXPECT_TRUE(text.ok()) << log_file;
  std::string renamed = text.value();
  for (size_t at = renamed.find(from); at != std::string::npos; at = renamed.find(from, at)) {
    renamed.replace(at, from.size(), to);
    at += to.size();
  }
  Result<StartupLog> log = read_startup_log(renamed, std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  ExplainOverrides o;
  o.gpu = gpu;
  return explain_log(log.value(), log_file, nullptr, o, ctx);
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
                "the log: start-up failed at line 15 (EngineCore_0 pid=5839): error: 'EngineCore "
                "failed to start.'",
                "the log's arithmetic: budget = total 79.19 GiB (h100-sxm-80gb's) x "
                "--gpu-memory-utilization 0.9 (vLLM 0.10.1's default) = 71.27 GiB",
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
// case of the rounding) holds 49,168 tokens if every layer is full attention. The second start-up
// (another engine process) prints no figure: nothing to check, so the log's exit code stays 2.
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
  EXPECT_EQ(
      r.diagnosis,
      (std::vector<std::string>{
          "the log: start-up failed at line 39 (EngineCore_DP0 pid=6880): the KV cache cannot "
          "hold one request of the maximum length",
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
  EXPECT_EQ(r.diagnosis.back(),
            "agrees with the log: 0 GPU blocks (line 10), the start-up does "
            "not fit");
  EXPECT_EQ(r.advice,
            "by the log's own figures (each alone):\n"
            "  --gpu-memory-utilization 0.84: budget 6.72 GiB - non-KV memory 6.66 GiB (the "
            "log's budget less its KV cache memory) = 0.05 GiB for the KV cache: more than none; "
            "whether it holds one request of the maximum length needs the model (name it with "
            "--model)\n");
}

// vLLM 0.21 on logs the KV cache size as int(concurrency x max model length), whatever the
// model: 567,978 tokens for 131,072-token requests are 4.3333x, logged 4.33x (the printed
// rounding and one token of the int() make the tolerance). The checkpoint is renamed to one
// gpumem cannot read (its own name replays it in full: quantized_variant_test.cc).
TEST(PartialReplay, VllmConcurrencyFromTokens) {
  const Explanation e =
      explain_renamed("vllm-rtx5090-x1-qwen3.6-35b-a3b-nvfp4-club3090.log", "rtx-5090",
                      "~/.cache/huggingface/qwen3.6-35b-a3b-nvfp4", "my-own-finetune");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_TRUE(r.partial->fits);
  const FigureCheck& c = at(r, Quantity::kMaxConcurrency, 9);
  EXPECT_EQ(c.verdict, Verdict::kMatch);
  EXPECT_NEAR(*c.predicted, 567978.0 / 131072, 1e-12);
  EXPECT_NEAR(c.tolerance, 0.005 + 1.0 / 131072, 1e-12);
  EXPECT_NE(std::find(r.diagnosis.begin(), r.diagnosis.end(),
                      "the log's arithmetic: maximum concurrency = KV tokens / max model length = "
                      "567978 / 131072 = 4.33x"),
            r.diagnosis.end());
  // The release the argument dump pasted below the figures names, v0.24.0, is modelled.
  EXPECT_EQ(r.implied.version.value, "0.24.0");
  EXPECT_FALSE(r.implied.version_newer_than_modelled);
}

// V0 (and V1 before v0.8) log blocks: 1,381 blocks of 16 tokens for 2,048-token requests are
// 10.7891x, logged 10.79x (the checkpoint renamed, as above).
TEST(PartialReplay, VllmConcurrencyFromV0Blocks) {
  const Explanation e =
      explain_renamed("vllm-80gb-x1-llama3.1-70b-w8a8-v1-early-gpu-blocks.log", "h100-sxm-80gb",
                      "neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8", "my-own-finetune");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  const FigureCheck& c = at(r, Quantity::kMaxConcurrency, 16);
  EXPECT_EQ(c.verdict, Verdict::kMatch);
  EXPECT_NEAR(*c.predicted, 1381.0 * 16 / 2048, 1e-12);
  EXPECT_NE(std::find(r.diagnosis.begin(), r.diagnosis.end(),
                      "the log's arithmetic: maximum concurrency = GPU blocks x block size / max "
                      "model length = 1381 x 16 / 2048 = 10.79x"),
            r.diagnosis.end());
}

// 290,864 tokens for 32,768-token requests are 8.88x, but the log says 33.04x: not the
// ratio of v0.21 on, so the release (not printed) is older and the model (Qwen3.5, hybrid)
// has several KV cache groups. Served under a name gpumem does not know (the log's own
// replays in full, engine_logs_test.cc), the figure is not claimed: nothing else is checkable.
TEST(PartialReplay, VllmConcurrencyOfSeveralGroupsIsNotClaimed) {
  Result<std::string> text =
      read_file(kDir + "vllm-h20-x1-qwen3.5-27b-kv-size-log.log", InputKind::kLog);
  ASSERT_TRUE(text.ok());
  std::string renamed = text.value();
  renamed.replace(renamed.find("vllm serve Qwen3.5-27B"), 22, "vllm serve my-own-finetune");
  Result<StartupLog> log = read_startup_log(renamed, std::nullopt);
  ASSERT_TRUE(log.ok());
  ExplainOverrides h20;
  h20.gpu = "h20";
  const Explanation e =
      explain_log(log.value(), "renamed.log", nullptr, h20,
                  {test_catalogs().gpus, test_catalogs().models, published_constants, {}});
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  EXPECT_FALSE(r.partial.has_value());
  EXPECT_EQ(at(r, Quantity::kMaxConcurrency, 10).verdict, Verdict::kNotPredicted);
  // Said, though nothing is checked.
  EXPECT_NE(
      std::find(r.diagnosis.begin(), r.diagnosis.end(),
                "the log's arithmetic: maximum concurrency 33.04x is neither KV tokens / max "
                "model length (8.88x) nor its whole 16-token blocks (8.88x): the release, not "
                "printed, is older than v0.21.0 (from it the token count is concurrency x "
                "max model length for every model), and the model's KV cache has several "
                "groups (hybrid or sliding-window layers), whose blocks per request the "
                "model would say: not predicted"),
      r.diagnosis.end());
  EXPECT_EQ(explanation_exit_code(e), kExitBadInput);
}

// A weight-load OOM whose only figure is the error's total: the H20 141GB's 139.78 GiB
// against 139.72 logged. The KV cache arithmetic decides nothing, so the log's failure decides
// the fit (exit 1) and no flag change is proposed from figures the log does not print.
TEST(PartialReplay, MemoryFailureDecidesWhereTheFiguresDoNot) {
  const Explanation e =
      explain("vllm-h20-x1-qwen2.5-72b-fp8-v0130-weight-load-oom.log", "h20-141gb");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_FALSE(r.partial->fits);
  EXPECT_EQ(at(r, Quantity::kTotalMemory, 10).verdict, Verdict::kMatch);
  EXPECT_EQ(r.advice, "");
  EXPECT_EQ(explanation_exit_code(e), kExitDoesNotFit);
}

// vLLM 0.21's note on the CUDA-graph estimate: 0.62 - 6.24 GiB / 79.38 GiB (the A800's CUDA
// total) = 0.5414, logged 0.5413; the tolerance is the printed rounding of both and the
// catalog total's 0.10 GiB.
TEST(PartialReplay, VllmUtilizationLessTheGraphEstimate) {
  const Explanation e = explain("vllm-a800-x1-qwen3.6-35b-a3b-fp8-dflash-kv.log", "a800-sxm4-80gb");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  const FigureCheck& u = at(r, Quantity::kEquivalentUtilization, 28);
  EXPECT_EQ(u.verdict, Verdict::kMatch);
  EXPECT_NEAR(u.logged, 0.5413, 1e-12);
  EXPECT_EQ(at(r, Quantity::kCudaGraphEstimate, 26).verdict, Verdict::kPinned);
  EXPECT_EQ(r.diagnosis[0],
            "the log's arithmetic: --gpu-memory-utilization without the CUDA-graph estimate = "
            "0.6200 - 6.24 / 79.38 = 0.5414");
}

// Without the GPU the same note sizes it: 0.52 GiB is 0.9764 - 0.9543 = 0.0221 of the total,
// 23.25 to 23.81 GiB by the rounding (the 24 GB card). The concurrency is checked.
TEST(PartialReplay, VllmGpuTotalFromTheGraphEstimateNote) {
  const Explanation e = explain("vllm-24gb-x1-qwen3-8b-lmcache-cpu-offload-quickstart.log");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_EQ(at(r, Quantity::kEquivalentUtilization, 9).verdict, Verdict::kNotPredicted);
  EXPECT_EQ(at(r, Quantity::kMaxConcurrency, 11).verdict, Verdict::kMatch);
  EXPECT_NE(std::find(r.diagnosis.begin(), r.diagnosis.end(),
                      "the log's arithmetic: the GPU's CUDA total = CUDA-graph estimate / "
                      "(--gpu-memory-utilization - its equivalent without the estimate) = 0.52 / "
                      "0.0221: 23.25 GiB to 23.81 GiB by the print rounding (line 9)"),
            r.diagnosis.end());
}

// An out-of-memory error's "total capacity of 95.08 GiB" against the H20's 95.00 GiB named
// with --gpu; the log's failure decides the fit, which its figures do not.
TEST(PartialReplay, TotalCapacityAgainstTheNamedGpu) {
  const Explanation e = explain("sglang-h20-x1-qwen3-next-80b-int8dq-oom.log", "h20");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_FALSE(r.partial->fits);
  const FigureCheck& t = at(r, Quantity::kTotalMemory, 12);
  EXPECT_EQ(t.verdict, Verdict::kMatch);
  EXPECT_NEAR(*t.predicted, 95.0, 0.005);
  EXPECT_EQ(explanation_exit_code(e), kExitDoesNotFit);
}

// A total the GPU was chosen by is no check of it: the 47.37 GiB of the error picks the
// unlisted 48 GB card.
TEST(PartialReplay, TotalThatChoseTheGpuIsNotAPrediction) {
  const Explanation e = explain("sglang-48gb-x2-glm5.1-lsglang-mtp-lkmoe-oom.log");
  ASSERT_EQ(e.runs.size(), 1u);
  EXPECT_FALSE(e.runs[0].partial.has_value());
  EXPECT_EQ(at(e.runs[0], Quantity::kTotalMemory, 8).verdict, Verdict::kNotPredicted);
}

// An SGLang excerpt without server_args: --mem-fraction-static is SGLang's default for the
// logged flags and the named GPU. B300 (memory.total 275,040 MiB), TP 8 with DP attention over
// 8 groups, v0.5.3 by the log's wording: reserve 512 + 1.5 x 16,384 + 2 x 512 + 1,024 +
// 3 x 512 x 8 + 1.5 x 512 x 8 = 45,568 MiB, so 0.834; rest = 172.51 - 265.57 x 0.166 =
// 128.43 GiB against the 162.38 GiB the pool took: a MISS, which the caveat explains (the
// post's dsv32 image and launch command are not in the log).
TEST(PartialReplay, SglangDefaultFractionOfTheNamedGpu) {
  const Explanation e =
      explain("sglang-b300-x8-deepseek-v3.2-dsv32-image-capture-kernel-fail.log", "b300");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  EXPECT_EQ(at(r, Quantity::kFreeAfterWeights, 10).verdict, Verdict::kPinned);
  const FigureCheck& kv = at(r, Quantity::kKvSize, 15);
  EXPECT_EQ(kv.verdict, Verdict::kMiss);
  EXPECT_NEAR(*kv.predicted, 128.43, 0.005);
  EXPECT_EQ(r.diagnosis[1],
            "the log's arithmetic: rest = A - F x (1 - 0.834) = 172.51 - 265.57 x 0.17 = 128.43 "
            "GiB for the KV pool (F = A + weights took = 172.51 + 93.06); --mem-fraction-static "
            "0.834 is SGLang 0.5.6's default for b300 (memory.total 275040 MiB, reserving 45568 "
            "MiB) (the log shows no launch command: a --mem-fraction-static given there replaces "
            "it)");
}

// A 5,000-token maximum length is not a whole number of 16-token blocks: 467,520 tokens are
// 93.50x of it, but the log's 93.35x counts 313 blocks a request (467,520 / 5,008), as v0.9
// to v0.20 count for one KV cache group; the release is not printed, so the diagnosis says
// which rule the figure follows. Both engine cores (data parallel) are checked.
TEST(PartialReplay, VllmConcurrencyInWholeBlocks) {
  const Explanation e = explain("vllm-unknown-x2-dp2-v092-kv-size-5000-tokens.log");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.partial.has_value());
  for (int line : {7, 9}) {
    const FigureCheck& c = at(r, Quantity::kMaxConcurrency, line);
    EXPECT_EQ(c.verdict, Verdict::kMatch);
    EXPECT_NEAR(*c.predicted, 467520.0 / 5008, 1e-12);
  }
  EXPECT_EQ(r.diagnosis.back(),
            "the log's arithmetic: maximum concurrency = KV tokens / (max model length in whole "
            "16-token blocks) = 467520 / 5008 = 93.35x, as v0.9 to v0.20 count it for a model "
            "whose layers form one KV cache group (the release is not printed)");
  EXPECT_EQ(explanation_exit_code(e), kExitOk);
}

// vllm #53013 (TP 2 x DP 4 x EP on eight GB300s): "Worker_DP1_TP1_EP3" is TP rank 1 of the
// second data-parallel engine, GPU 3, not GPU 1.
TEST(PartialReplay, AVllmDataParallelWorkerIsShownOnItsGlobalGpu) {
  const Explanation e =
      explain("vllm-gb300-x8-qwen3.8-2.4t-nvfp4-tp2-dp4-ep-cudagraph-estimate-no-cache-blocks.log",
              "gb300");
  ASSERT_EQ(e.runs.size(), 1u);
  const FigureCheck& estimate = at(e.runs[0], Quantity::kCudaGraphEstimate, 6);
  EXPECT_EQ(estimate.process, "Worker_DP1_TP1_EP3 pid=3585771");
  EXPECT_EQ(estimate.gpu, 3);
}

}  // namespace
}  // namespace gpumem
