// Which vLLM model runner a log shows (LogRun::v2_model_runner), and that the implied scenario
// replays that runner (VLLM_USE_V2_MODEL_RUNNER) rather than the release's default. The lines
// are verbatim from public posts.
#include <gtest/gtest.h>

#include <string>

#include "explain/implied_scenario.h"
#include "explain/log_reader.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

LogRun only_run(const std::string& text) {
  Result<StartupLog> log = read_startup_log(text, std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  if (!log.ok() || log->runs.size() != 1) {
    ADD_FAILURE() << "one run expected";
    return {};
  }
  return log->runs.front();
}

void expect_runner(const LogRun& run, bool v2, int line) {
  ASSERT_TRUE(run.v2_model_runner.has_value());
  EXPECT_EQ(*run.v2_model_runner, v2);
  EXPECT_EQ(run.model_runner_line, line);
}

// A DiffusionGemma TP 2 start-up on two RTX 3090s, 06-19 (a club-3090-style report; stored
// file id 55592757904 of the code index): Model Runner V2's worker line.
TEST(ModelRunnerReading, UsingV2ModelRunner) {
  const LogRun run = only_run(
      "(Worker pid=50) INFO 06-19 05:51:18 [gpu_worker.py:303] Using V2 Model Runner\n"
      "(Worker_TP0 pid=50) INFO 06-19 05:51:36 [model_runner.py:290] Model loading took 14.59 "
      "GiB and 17.632303 seconds\n"
      "(Worker_TP0 pid=50) INFO 06-19 05:51:39 [gpu_worker.py:480] Available KV cache memory: "
      "4.36 GiB\n");
  expect_runner(run, true, 1);
  EXPECT_EQ(run.model_runner_evidence, "'Using V2 Model Runner'");
}

// The Korean lab notes of the vllm-rtx4090-x1-qwen2.5-vl-7b corpus log (vLLM 0.27.1, no
// version printed): V2's weights line, 2 decimals and no "memory", dates it from 0.22 to 0.27.
// V0 and V1 printed "GiB and" before 0.11 only, with 4 decimals (vllm-a100-x1-qwen3-0.6b).
TEST(ModelRunnerReading, V2sWeightsWording) {
  const LogRun v2 = only_run(
      "Model loading took 15.67 GiB and 10.349460 seconds\n"
      "GPU KV cache size: 62,736 tokens\n");
  expect_runner(v2, true, 1);
  EXPECT_EQ(v2.model_runner_evidence,
            "'Model loading took ... GiB and' with at most 2 decimals (Model Runner V2's)");
  ASSERT_EQ(v2.version_clues.size(), 1u);
  EXPECT_EQ(v2.version_clues[0].from, "0.22.0");
  EXPECT_EQ(v2.version_clues[0].before, "0.28.0");
  const LogRun v1 = only_run(
      "(EngineCore_DP0 pid=643458) INFO 09-10 13:29:14 [gpu_model_runner.py:2235] Model loading "
      "took 1.1201 GiB and 0.596228 seconds\n"
      "(EngineCore_DP0 pid=643458) INFO 09-10 13:29:20 [gpu_worker.py:276] Available KV cache "
      "memory: 66.05 GiB\n");
  expect_runner(v1, false, 1);
  for (const VersionClue& c : v1.version_clues) EXPECT_NE(c.from, "0.22.0");
}

// gpustack/runner#251 (https://github.com/gpustack/runner/pull/251), vLLM 0.27.1, TP 2: the
// V1 runner's CUDA-graph profile, which Model Runner V2 never prints. From 0.25 a dense model
// defaults to V2, so the replay asks for V1.
TEST(ModelRunnerReading, TheV1RunnersFileAtARelease) {
  const LogRun run = only_run(
      "(Worker_TP1 pid=448) INFO 08-14 14:07:20 [gpu_model_runner.py:6681] Profiling CUDA graph "
      "memory: PIECEWISE=16 (largest=16)\n"
      "(Worker_TP0 pid=447) INFO 08-14 14:07:22 [gpu_worker.py:563] Available KV cache memory: "
      "6.87 GiB\n");
  expect_runner(run, false, 1);
  const ImpliedScenario s = infer_scenario(run, LogEngine::kVllm, "gpustack.log",
                                           test_catalogs().gpus, test_catalogs().models);
  ASSERT_EQ(s.env.size(), 1u);
  EXPECT_EQ(s.env[0].first, "VLLM_USE_V2_MODEL_RUNNER");
  EXPECT_EQ(s.env[0].second.value, "0");
  EXPECT_EQ(s.env[0].second.note, "a line of the V1 model runner (gpu_model_runner.py:6681)");
  EXPECT_NE(implied_yaml(s).text.find(
                "  env:\n    VLLM_USE_V2_MODEL_RUNNER: \"0\"  # a line of the V1 model runner "
                "(gpu_model_runner.py:6681), line 1\n"),
            std::string::npos)
      << implied_yaml(s).text;
}

}  // namespace
}  // namespace gpumem
