// What a replay takes from a log beyond its figures: the memory other processes held when
// vLLM started (read from its free memory at start-up), a negative CUDA-graph estimate, and
// the speculative decoding its engine line prints as SpeculativeConfig(...).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/explain/explain_case.h"

namespace gpumem {
namespace {

const LoggedFlag* flag(const RunExplanation& r, const std::string& name) {
  for (const LoggedFlag& f : r.implied.args) {
    if (f.flag == name) return &f;
  }
  return nullptr;
}

// vllm #23192 (a comment): Llama-3.1-8B on an H200 whose other processes held ~132 GiB;
// "Free memory on device (7.34/139.72 GiB) on startup is less than desired GPU memory
// utilization (0.9, 125.75 GiB)".
TEST(ReplayPins, MemoryOtherProcessesHeldIsReplayedAsHeld) {
  const Explanation e = explain_case("vllm-h200-x1-llama3.1-8b-nightly-free-memory-startup.log",
                                     with("", "llama-3.1-8b-instruct", 0));
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.replayed()) << r.not_replayed;
  EXPECT_NE(std::find(r.pinned.begin(), r.pinned.end(), "free_at_startup"), r.pinned.end());
  // With the published constants the engine alone leaves 139.20 GiB; the log found 7.34.
  const FigureCheck& free = at(r, Quantity::kFreeAtStartup, 9);
  EXPECT_EQ(free.verdict, Verdict::kPinned);
  ASSERT_TRUE(free.predicted);
  EXPECT_NEAR(*free.predicted, 139.20, 0.005);
  const auto pin = std::find_if(r.pins.begin(), r.pins.end(),
                                [](const Pin& p) { return p.key == "free_at_startup"; });
  ASSERT_NE(pin, r.pins.end());
  EXPECT_EQ(pin->note,
            "line 9: other processes held 131.86 GiB of GPU 0 (the engine alone leaves 139.20 "
            "GiB free)");
  EXPECT_FALSE(r.ledger->fits());
  const LedgerStep* failed = r.ledger->gpus[0].failed_step();
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->name, "memory_snapshot");
  EXPECT_EQ(failed->message,
            "ValueError: Free memory on device cuda:0 (7.34/139.72 GiB) on startup is less than "
            "desired GPU memory utilization (0.9, 125.75 GiB). Decrease GPU memory utilization "
            "or reduce GPU memory used by other processes.");
  // From scratch nothing is taken from the log: the GPU is free, and the start-up fits.
  ExplainOverrides scratch = with("", "llama-3.1-8b-instruct", 0);
  scratch.from_scratch = true;
  const Explanation alone =
      explain_case("vllm-h200-x1-llama3.1-8b-nightly-free-memory-startup.log", scratch);
  ASSERT_TRUE(alone.runs[0].replayed());
  EXPECT_TRUE(alone.runs[0].ledger->fits());
}

// eugr/spark-vllm-docker #200: Qwen3.6-35B-A3B-FP8 with two MTP tokens and an fp8 KV cache
// on a GB10, whose estimate came out negative. 52.66 GiB over 44 layer slots of 1,024 B a
// token (11 attention layers, the MTP draft's included, in 4 groups of 11: "Add 3 padding
// layers") is the logged 1,253,392 tokens.
TEST(ReplayPins, NegativeGraphEstimateAndSpeculativeConfigOfTheEngineLine) {
  const Explanation e = explain_case(
      "vllm-gb10-x1-qwen3.6-35b-a3b-fp8-negative-cudagraph-estimate.log", with("gb10", "", 1));
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.replayed()) << r.not_replayed;
  const LoggedFlag* spec = flag(r, "--speculative-config");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->values,
            std::vector<std::string>{"{\"method\": \"mtp\", \"num_speculative_tokens\": 2}"});
  const LoggedFlag* kv_dtype = flag(r, "--kv-cache-dtype");
  ASSERT_NE(kv_dtype, nullptr);
  EXPECT_EQ(kv_dtype->values, std::vector<std::string>{"fp8"});
  EXPECT_EQ(r.pinned, (std::vector<std::string>{"cuda_graph_estimate", "kv_cache_memory"}));
  const FigureCheck& estimate = at(r, Quantity::kCudaGraphEstimate, 20);
  ASSERT_TRUE(estimate.predicted);
  EXPECT_NEAR(*estimate.predicted, -4.74, 0.005);
  const FigureCheck& tokens = at(r, Quantity::kKvTokens, 23);
  ASSERT_TRUE(tokens.predicted);
  EXPECT_EQ(*tokens.predicted, 1'253'392);
  EXPECT_EQ(tokens.verdict, Verdict::kMatch);
}

}  // namespace
}  // namespace gpumem
