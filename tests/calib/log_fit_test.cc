// gpumem calibrate --from-logs' fit (calib/log_fit.h) on public logs of the corpus: the context
// a log's figure before the weights gives, exactly; which figures are fitted, held out,
// checked or left out, and why.
#include "calib/log_fit.h"

#include <gtest/gtest.h>

#include "calib/calibration_file.h"
#include "calib/parameters.h"
#include "core/atomic_file.h"
#include "explain/log_header.h"
#include "explain/log_reader.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const std::string kDir = GPUMEM_SOURCE_DIR "/tests/data/engine-logs/";

// A corpus log as `gpumem calibrate --from-logs` reads it: its header's options and the
// scenario beside it, when there is one.
LogCase corpus_case(const std::string& stem, bool held_out = false) {
  const std::string file = kDir + stem + ".log";
  Result<std::string> text = read_file(file, InputKind::kLog);
  EXPECT_TRUE(text.ok()) << stem;
  Result<StartupLog> log = read_startup_log(*text, std::nullopt, file);
  EXPECT_TRUE(log.ok()) << log.status().message();
  Result<ExplainOverrides> header = overrides_from_header(*text, file, test_catalogs().gpus);
  EXPECT_TRUE(header.ok()) << header.status().message();
  LogCase c{file, std::move(*log), std::move(*header), std::nullopt, held_out};
  Diagnostics diags;
  if (Result<std::string> yaml = read_file(kDir + stem + ".yaml", InputKind::kScenario);
      yaml.ok()) {
    c.scenario = load_scenario(kDir + stem + ".yaml", test_catalogs().gpus, diags);
    EXPECT_TRUE(c.scenario && diags.empty()) << diags.to_string();
  }
  return c;
}

Result<LogFitOutcome> fit(const std::vector<LogCase>& cases, const std::string& gpu_name) {
  const GpuSpec* gpu = test_catalogs().gpus.find(gpu_name);
  EXPECT_NE(gpu, nullptr);
  return fit_context_to_logs(cases, *gpu, default_constants(*gpu), test_catalogs().gpus,
                             test_catalogs().models, "qwen3-0.6b");
}

Bytes printed_gib(double g) { return bytes(std::llround(g * 1073741824.0)); }

TEST(LogFit, SglangFreeBeforeWeightsLessDistributedInitGivesTheContextExactly) {
  // case37: QwQ-32B on four L4s, TP 4; TP0 prints D = 0.13 GB (line 9) and F = 21.63 GB
  // (line 10); the catalog's CUDA total of the L4 is deviceQuery's 23,583,784,960 B.
  Result<LogFitOutcome> out = fit({corpus_case("case37-sglang-l4-x4-qwq-32b-tp4")}, "l4");
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->figures.size(), 1u);
  const ContextFigure& f = out->figures[0];
  EXPECT_EQ(f.line, 10);
  EXPECT_EQ(f.gpu, 0);
  EXPECT_EQ(f.role, FigureRole::kFitted);
  EXPECT_EQ(f.model, "qwq-32b");
  ASSERT_TRUE(f.logged_distributed_gib.has_value());
  EXPECT_DOUBLE_EQ(*f.logged_distributed_gib, 0.13);
  EXPECT_EQ(f.used_logged, bytes(23'583'784'960) - printed_gib(21.63) - printed_gib(0.13));
  EXPECT_EQ(f.used_logged, bytes(219'162'870));
  // The published context of an L4: 2 KiB per thread slot, 58 SMs x 1,536 threads.
  EXPECT_EQ(out->start_context, bytes(2048 * 58 * 1536));
  // The context reaches the figure one for one, so one figure fits it exactly: what the log
  // shows in use, less gpumem's other costs before the weights.
  EXPECT_DOUBLE_EQ(f.derivative, 1.0);
  EXPECT_EQ(out->fitted_context - out->start_context, f.used_logged - f.used_start);
  // SGLang takes F as the world minimum through a float32 all-reduce of GiB (2 KiB steps at
  // 21 GiB): the replay's figure lands within that step of the log's, 164 B here.
  EXPECT_EQ(f.used_logged - f.used_fitted, bytes(164));
  EXPECT_TRUE(out->left_out.empty());
}

TEST(LogFit, HeldOutLogIsCheckedWithTheFittedContextAndNotFittedOn) {
  // The RTX 4090 log under Linux is fitted; the same card's WSL log is held out.
  Result<LogFitOutcome> out =
      fit({corpus_case("sglang-rtx4090-x1-olmocr-7b-qwen2vl-wsl", true),
           corpus_case("sglang-rtx4090-x1-qwen3-30b-a3b-gptq-int4-scheduler-exception")},
          "rtx-4090");
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->figures.size(), 2u);
  const ContextFigure& wsl = out->figures[0];
  const ContextFigure& linux_log = out->figures[1];
  EXPECT_EQ(wsl.role, FigureRole::kHeldOut);
  EXPECT_EQ(linux_log.role, FigureRole::kFitted);
  // Neither log's model is one gpumem builds: the stand-in replays the steps before the
  // weights, and the report says what it stands for.
  EXPECT_EQ(wsl.model, "qwen3-0.6b standing in for Qwen/Qwen2-VL-7B-Instruct");
  EXPECT_EQ(linux_log.model, "qwen3-0.6b standing in for a model the log does not name");
  // RTX 4090 CUDA total 24,207 MiB; F 23.07 GB, D 0.00 GB.
  EXPECT_EQ(linux_log.used_logged, mib(24'207) - printed_gib(23.07));
  EXPECT_EQ(linux_log.used_fitted, linux_log.used_logged);
  // The held-out log moves nothing: the fitted context is the Linux log's alone.
  EXPECT_EQ(out->fitted_context - out->start_context, linux_log.used_logged - linux_log.used_start);
  // WSL holds 22.46 GB free: 0.61 GiB more in use than the fitted Linux figure.
  EXPECT_EQ(wsl.used_logged, mib(24'207) - printed_gib(22.46));
  EXPECT_EQ(wsl.used_logged - wsl.used_fitted, printed_gib(23.07) - printed_gib(22.46));
}

TEST(LogFit, SeveralGpusWithoutDistributedUsageAreCheckedNotFitted) {
  // Two RTX 3090s under vLLM: the init snapshot holds the communicators, which the log does
  // not print apart, so the context cannot be told from them.
  Result<LogFitOutcome> out =
      fit({corpus_case("vllm-rtx3090-x2-qwen3.8-27b-dual-max-kv-memory-hint")}, "rtx-3090");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "no start-up on rtx-3090 prints memory before the weights that the context alone "
            "moves (on one GPU, or beside SGLang's distributed-init usage)");
  Result<LogFitOutcome> with_one =
      fit({corpus_case("vllm-rtx3090-x2-qwen3.8-27b-dual-max-kv-memory-hint"),
           corpus_case("case23-vllm-rtx3090-x1-llama3.1-8b-maxlen-sweep")},
          "rtx-3090");
  ASSERT_FALSE(with_one.ok()) << "case23 prints non-torch memory only, nothing before weights";
}

TEST(LogFit, OtherProcessesAndSizeGuessesAreLeftOutByName) {
  Result<LogFitOutcome> out =
      fit({corpus_case("vllm-h200-x1-llama3.1-8b-nightly-free-memory-startup"),
           corpus_case("sglang-h200-x8-llama3.3-70b-piecewise-cudagraph")},
          "h200-sxm-141gb");
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->left_out.size(), 1u);
  // vllm #23192: 7.34 of 139.72 GiB free at start-up, 132.38 GiB in use.
  EXPECT_EQ(out->left_out[0].why,
            "line 9: GPU 0 held 131.86 GiB more than gpumem predicts before the weights; no "
            "context is that size (other processes on the GPU, or another GPU than the one "
            "stated)");
  EXPECT_EQ(out->figures.size(), 8u);
  // 48 GB RTX 4090 (CUDA total 47.37 GiB): explain takes it for the RTX 6000 Ada by size.
  Result<LogFitOutcome> guessed =
      fit({corpus_case("vllm-rtx4090-48gb-x1-awq-batch-invariant")}, "rtx-6000-ada");
  ASSERT_FALSE(guessed.ok());
  EXPECT_NE(guessed.status().message().find("the GPU is a guess by size"), std::string::npos)
      << guessed.status().message();
}

}  // namespace
}  // namespace gpumem
