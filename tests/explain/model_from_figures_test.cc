// A start-up whose log names no model: the model is taken from its figures when exactly the
// replays of one catalog or bundled model print them (explain/model_from_figures.h), several
// that fit are named, and none is taken on too little evidence.
#include "explain/model_from_figures.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/atomic_file.h"
#include "explain/explanation.h"
#include "explain/log_reader.h"
#include "support/published_constants.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const std::string kDir = GPUMEM_SOURCE_DIR "/tests/data/engine-logs/";
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

StartupLog read_log(const std::string& text) {
  Result<StartupLog> log = read_startup_log(text, std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  return log.ok() ? log.value() : StartupLog{};
}

RunExplanation explain(const std::string& text, const std::string& gpu) {
  const ExplainContext ctx{test_catalogs().gpus, test_catalogs().models, published_constants, {}};
  ExplainOverrides o;
  o.gpu = gpu;
  const Explanation e = explain_log(read_log(text), "figures.log", nullptr, o, ctx);
  EXPECT_EQ(e.runs.size(), 1u);
  return e.runs.empty() ? RunExplanation{} : e.runs.front();
}

std::string corpus_log(const std::string& name) {
  Result<std::string> text = read_file(kDir + name, InputKind::kLog);
  EXPECT_TRUE(text.ok()) << name;
  return text.ok() ? text.value() : "";
}

// Qwen3-30B-A3B's size and KV token (48 layers x 4 KV heads x 128 x K and V x 2 bytes = 98,304
// bytes) at a launch that does not say which of its variants ran.
const std::string kQwen3MoeLog =
    "[2025-09-01 10:00:00] Load weight begin. avail mem=139.00 GB\n"
    "[2025-09-01 10:00:20] Load weight end. type=Qwen3MoeForCausalLM, dtype=torch.bfloat16, "
    "avail mem=82.10 GB, mem usage=56.90 GB.\n"
    "[2025-09-01 10:00:21] KV Cache is allocated. #tokens: 500000, K size: 22.89 GB, V size: "
    "22.89 GB\n"
    "[2025-09-01 10:00:21] Memory pool end. avail mem=35.10 GB\n";

TEST(ModelFromFigures, SglangEvidenceIsTheWeightsTheClassAndTheKvToken) {
  const StartupLog log = read_log(kQwen3MoeLog);
  ASSERT_EQ(log.runs.size(), 1u);
  const std::optional<ModelEvidence> e = model_evidence(log.runs[0], LogEngine::kSglang);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->weights.value, 56.90);
  EXPECT_EQ(e->weights.line, 2);
  EXPECT_EQ(e->architecture, "Qwen3MoeForCausalLM");
  ASSERT_TRUE(e->kv_bytes_per_token.has_value());
  EXPECT_DOUBLE_EQ(*e->kv_bytes_per_token, 45.78 * kGiB / 500000);  // 98,311.8
  EXPECT_DOUBLE_EQ(e->kv_bytes_rounding, 0.01 * kGiB / 500000);     // 21.5
  // 98,304 bytes per token is within the rounding; 1.5 % and the rounding further is not.
  EXPECT_TRUE(figures_agree(*e, 56.90, 98304.0));
  EXPECT_FALSE(figures_agree(*e, 56.90, *e->kv_bytes_per_token * 1.015 + 22));
  // Weights: 4 % of 56.90 GiB (2.276) and half a unit of each print (0.005 + 0.005).
  EXPECT_TRUE(figures_agree(*e, 56.90 + 2.28, 98304.0));
  EXPECT_FALSE(figures_agree(*e, 56.90 + 2.29, 98304.0));
}

TEST(ModelFromFigures, VllmEvidenceNeedsTheKvTokenOrTheClass) {
  // Without the class the weights alone would take any model of that size.
  const StartupLog alone = read_log(
      "INFO 10-11 10:42:13 [gpu_model_runner.py:2653] Model loading took 15.2683 GiB and "
      "3.1 seconds\n");
  ASSERT_EQ(alone.runs.size(), 1u);
  const std::optional<ModelEvidence> weights = model_evidence(alone.runs[0], LogEngine::kVllm);
  ASSERT_TRUE(weights.has_value());
  EXPECT_EQ(weights->weights.value, 15.2683);
  EXPECT_FALSE(weights->sufficient());
  const StartupLog with_kv = read_log(
      "INFO 10-11 10:42:13 [gpu_model_runner.py:2653] Model loading took 15.2683 GiB and "
      "3.1 seconds\n"
      "INFO 10-11 10:42:14 [gpu_worker.py:298] Available KV cache memory: 13.69 GiB\n"
      "INFO 10-11 10:42:14 [kv_cache_utils.py:1087] GPU KV cache size: 99,680 tokens\n");
  ASSERT_EQ(with_kv.runs.size(), 1u);
  const std::optional<ModelEvidence> e = model_evidence(with_kv.runs[0], LogEngine::kVllm);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->sufficient());
  EXPECT_EQ(e->weights.value, 15.2683);
  EXPECT_TRUE(e->architecture.empty());
  EXPECT_DOUBLE_EQ(*e->kv_bytes_per_token, 13.69 * kGiB / 99680);
  EXPECT_DOUBLE_EQ(e->kv_bytes_rounding, 0.005 * kGiB / 99680);
  // vLLM names the class it resolved (model.py, from v0.10.2).
  const StartupLog with_class = read_log(
      "(APIServer pid=1) INFO 01-28 00:06:26 [model.py:541] Resolved architecture: "
      "Qwen3ForCausalLM\n"
      "(EngineCore_DP0 pid=2) INFO 01-28 00:07:00 [gpu_model_runner.py:2653] Model loading took "
      "15.27 GiB memory and 3.1 seconds\n");
  ASSERT_EQ(with_class.runs.size(), 1u);
  const std::optional<ModelEvidence> c = model_evidence(with_class.runs[0], LogEngine::kVllm);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->architecture, "Qwen3ForCausalLM");
  EXPECT_FALSE(c->kv_bytes_per_token.has_value());
}

// sglang #7227: the memory lines of a 32 GB card without the launch command. Qwen3-8B-FP8's
// block-FP8 checkpoint (8.79 GiB) is the only Qwen3ForCausalLM of that size, and its replay
// prints the weights line as logged.
TEST(ModelFromFigures, TheOnlyModelThatFitsIsReplayed) {
  const RunExplanation r =
      explain(corpus_log("sglang-unknown-x1-qwen3-8b-fp8-capture-oom.log"), "rtx-5090");
  EXPECT_TRUE(r.implied.model_resolved);
  EXPECT_EQ(r.implied.model.value, "Qwen/Qwen3-8B-FP8");
  EXPECT_EQ(r.implied.model.note,
            "the log names no model; inferred from the weights (8.81 GiB, line 7), the class "
            "Qwen3ForCausalLM, 147448 bytes per KV token: of the 3 catalog and bundled models of "
            "that size, the only one whose replay prints them (bundled config " GPUMEM_SOURCE_DIR
            "/model/llm/configs/Qwen--Qwen3-8B-FP8/config.json); if it ran "
            "another, name it with --model");
  ASSERT_TRUE(r.replayed());
  for (const FigureCheck& c : r.figures) {
    if (c.quantity == Quantity::kWeightUsage) {
      EXPECT_EQ(c.verdict, Verdict::kMatch);
    }
  }
}

TEST(ModelFromFigures, ModelsThatFitButReplayDifferentlyAreNamed) {
  const RunExplanation r = explain(kQwen3MoeLog, "h200");
  EXPECT_FALSE(r.implied.model_resolved);
  EXPECT_FALSE(r.replayed());
  EXPECT_EQ(r.implied.model.note,
            "the log names no model; the weights (56.90 GiB, line 2), the class "
            "Qwen3MoeForCausalLM, 98312 bytes per KV token fit 4 models (qwen3-30b-a3b, "
            "Qwen/Qwen3-30B-A3B-Instruct-2507, Qwen/Qwen3-30B-A3B-Thinking-2507, "
            "Qwen/Qwen3-Coder-30B-A3B-Instruct), whose replays differ: name one with --model");
}

TEST(ModelFromFigures, NoModelIsTakenWhenNoneFits) {
  const RunExplanation r = explain(corpus_log("vllm-a40-x1-lvllm-moe-int4-kv-half.log"), "a40");
  EXPECT_FALSE(r.implied.model_resolved);
  EXPECT_EQ(r.implied.model.note,
            "the log names no model; no replay of the 11 catalog and bundled models near that "
            "size (mistral-7b-instruct-v0.3, qwen2.5-7b-instruct, "
            "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B, llava-hf/llava-1.5-7b-hf, "
            "llava-hf/llava-v1.6-mistral-7b-hf, mistralai/Mamba-Codestral-7B-v0.1, "
            "Qwen/Qwen2-7B-Instruct, Qwen/Qwen2.5-7B, Qwen/Qwen2.5-Coder-7B-Instruct, "
            "Qwen/Qwen3-8B-FP8, "
            "tiiuae/Falcon3-7B-Instruct) prints the weights (11.55 GiB, line 7), 254007 bytes per "
            "KV token");
}

}  // namespace
}  // namespace gpumem
