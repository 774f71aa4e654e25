// The differential test of issue 24's memoization: random sweep points (a seeded
// std::mt19937, so every run draws the same ones) over the sweep's axes, on bundled
// scenarios of both engines (one-GPU SGLang and vLLM, an EAGLE-3 draft, TP 2 of each engine,
// the 16-GPU pipeline, two hybrid Gated DeltaNet models), each simulated twice: through one
// SimulationCache shared by every point of the scenario, as a sweep shares it, and with no cache at
// all. The ledgers must be byte-identical as JSON and the sweep's point results equal. Fractions
// are drawn in clusters of close values so that the memos are hit, and the test requires that the
// capture memo (sim/capture_memo.h) was.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "calib/calibration_file.h"
#include "runtime/ledger_json.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"
#include "sweep/evaluator.h"
#include "sweep/grid.h"

namespace gpumem::sweep {
namespace {

// One axis of the random grid: its key and the values a point draws from.
struct RandomAxis {
  std::string key;
  std::vector<std::string> values;
  double probability = 0.5;  // that a point sets this axis at all
};

struct Case {
  std::string scenario;  // under scenarios/, without .yaml
  std::string fraction_key;
  double low = 0;  // fractions drawn around centres in [low, high]
  double high = 0;
  std::vector<RandomAxis> axes;
  int points = 0;
};

std::string fraction_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.5f", v);
  return buf;
}

struct Outcome {
  int points = 0;
  int capture_hits = 0;
};

Outcome run_case(const Case& c, std::mt19937& rng) {
  const TestCatalogs& cat = test_catalogs();
  Diagnostics diags;
  std::optional<Scenario> base =
      load_scenario(GPUMEM_SOURCE_DIR "/scenarios/" + c.scenario + ".yaml", cat.gpus, diags);
  EXPECT_TRUE(base && diags.empty()) << diags.to_string();
  if (!base) return {};
  const SimulationConstants constants = default_constants(*cat.gpus.find(base->hardware.gpu));
  SimulationCache cache;
  SweepInputs cached{cat.gpus, cat.models, {}, &cache};
  cached.constants.emplace_back(base->hardware.gpu, constants);
  SweepInputs uncached{cat.gpus, cat.models, {}, nullptr};
  uncached.constants.emplace_back(base->hardware.gpu, constants);

  std::uniform_real_distribution<double> centre(c.low, c.high);
  std::uniform_int_distribution<int> jitter(-40, 40);
  std::uniform_real_distribution<double> coin(0, 1);
  double current = centre(rng);
  Outcome out;
  for (int i = 0; i < c.points; ++i) {
    // A new cluster of fractions now and then; otherwise a step of up to 0.0004.
    if (coin(rng) < 0.2) current = centre(rng);
    const double fraction = current + jitter(rng) * 0.00001;
    std::vector<std::string> args = {c.fraction_key + "=" + fraction_text(fraction)};
    for (const RandomAxis& a : c.axes) {
      if (coin(rng) >= a.probability) continue;
      std::uniform_int_distribution<size_t> pick(0, a.values.size() - 1);
      args.push_back(a.key + "=" + a.values[pick(rng)]);
    }
    std::vector<Axis> axes;
    int ordinal = 0;
    std::string point_text;
    for (const std::string& arg : args) {
      point_text += " " + arg;
      std::optional<Axis> axis = parse_axis(arg, ++ordinal, diags);
      if (!axis || !check_axis(*axis, *base, cat.gpus, diags)) {
        ADD_FAILURE() << arg << diags.to_string();
        return out;
      }
      axes.push_back(std::move(*axis));
    }
    const Grid grid(std::move(axes));
    SCOPED_TRACE(c.scenario + ":" + point_text);

    PointEvaluator with_memo(*base, grid, cached);
    PointEvaluator without_memo(*base, grid, uncached);
    EXPECT_EQ(with_memo.evaluate(0), without_memo.evaluate(0));

    PointScenarios scenarios(*base, grid);
    std::string error;
    const Scenario& s = scenarios.at(0, error);
    if (!error.empty()) continue;
    Diagnostics d1;
    Diagnostics d2;
    const std::optional<Ledger> memo_ledger =
        simulate_scenario(s, SimulationInputs{cat.gpus, cat.models, constants, &cache}, d1);
    const std::optional<Ledger> plain_ledger =
        simulate_scenario(s, SimulationInputs{cat.gpus, cat.models, constants, nullptr}, d2);
    EXPECT_EQ(d1.to_string(), d2.to_string());
    EXPECT_EQ(memo_ledger.has_value(), plain_ledger.has_value());
    if (memo_ledger && plain_ledger) {
      EXPECT_EQ(ledger_to_json(*memo_ledger), ledger_to_json(*plain_ledger));
    }
    ++out.points;
  }
  out.capture_hits = cache.capture_hits();
  return out;
}

TEST(MemoDifferential, RandomGridsMatchTheUncachedReplay) {
  std::mt19937 rng(24);
  const std::vector<std::string> sglang_graph_bs = {"8", "16", "32", "64", "96", "160", "256"};
  const std::vector<Case> cases = {
      {"h200x1-llama-3.1-8b",
       "--mem-fraction-static",
       0.30,
       0.92,
       {{"--cuda-graph-max-bs", sglang_graph_bs, 0.4},
        {"--context-length", {"2048", "8192", "32768", "131072"}, 0.4},
        {"--kv-cache-dtype", {"auto", "fp8_e4m3"}, 0.4},
        {"--max-running-requests", {"16", "48", "200", "1024"}, 0.3},
        {"--chunked-prefill-size", {"2048", "8192"}, 0.3},
        {"--page-size", {"1", "16", "64"}, 0.2},
        {"--disable-cuda-graph", {"true", "false"}, 0.1}},
       40},
      {"h200x1-llama-3.1-8b-vllm",
       "--gpu-memory-utilization",
       0.40,
       0.95,
       {{"--max-num-seqs", {"16", "64", "256", "1024"}, 0.4},
        {"--max-model-len", {"4096", "32768", "131072"}, 0.4},
        {"--kv-cache-dtype", {"auto", "fp8"}, 0.3},
        {"--max-num-batched-tokens", {"2048", "8192", "16384"}, 0.3},
        {"--max-cudagraph-capture-size", {"16", "64", "512"}, 0.3},
        {"--enforce-eager", {"true", "false"}, 0.1}},
       24},
      {"h200x1-llama-3.1-8b-eagle3",
       "--mem-fraction-static",
       0.40,
       0.90,
       {{"--cuda-graph-max-bs", sglang_graph_bs, 0.4},
        {"--context-length", {"4096", "32768"}, 0.3},
        {"--speculative-num-steps", {"1", "3", "5"}, 0.3}},
       16},
      {"h200x2-llama-3.1-8b-tp2",
       "--mem-fraction-static",
       0.40,
       0.92,
       {{"--tp-size", {"1", "2"}, 0.4},
        {"--cuda-graph-max-bs", sglang_graph_bs, 0.4},
        {"--disable-custom-all-reduce", {"true", "false"}, 0.3},
        {"hardware.interconnect", {"nvlink", "pcie"}, 0.2}},
       16},
      {"h200x2-qwen3-30b-a3b-vllm-tp2",
       "--gpu-memory-utilization",
       0.50,
       0.95,
       {{"--tensor-parallel-size", {"1", "2"}, 0.3}, {"--max-num-seqs", {"32", "256"}, 0.4}},
       8},
      {"h100x16-llama-3.1-405b-tp8-pp2", "--mem-fraction-static", 0.60, 0.92, {}, 4},
      // Hybrid Gated DeltaNet models: SGLang's state cache and vLLM's state pages.
      {"h200x1-qwen3.6-27b",
       "--mem-fraction-static",
       0.50,
       0.90,
       {{"--cuda-graph-max-bs", sglang_graph_bs, 0.4},
        {"--context-length", {"8192", "65536", "262144"}, 0.4},
        {"--disable-radix-cache", {"true", "false"}, 0.3},
        {"--max-running-requests", {"8", "64"}, 0.3},
        {"--mamba-ssm-dtype", {"float32", "bfloat16"}, 0.3}},
       16},
      {"h200x2-qwen3-next-80b-vllm-tp2",
       "--gpu-memory-utilization",
       0.70,
       0.95,
       {{"--max-num-seqs", {"32", "256"}, 0.4}, {"--max-model-len", {"32768", "262144"}, 0.4}},
       6},
  };
  int capture_hits = 0;
  for (const Case& c : cases) {
    const Outcome o = run_case(c, rng);
    EXPECT_EQ(o.points, c.points) << c.scenario;
    capture_hits += o.capture_hits;
  }
  // The capture memo must have answered captures, or the comparison proves nothing about it.
  EXPECT_GT(capture_hits, 20);
}

}  // namespace
}  // namespace gpumem::sweep
