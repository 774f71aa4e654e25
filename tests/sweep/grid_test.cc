// The grid of a sweep: point numbering (first axis slowest), and each point's scenario
// written in place over the base (a flag the base gives is overwritten under any spelling,
// one it does not give is added).
#include "sweep/grid.h"

#include <gtest/gtest.h>

#include "support/test_catalogs.h"

namespace gpumem::sweep {
namespace {

Axis checked(std::string_view arg, const Scenario& base) {
  Diagnostics diags;
  std::optional<Axis> a = parse_axis(arg, 1, diags);
  EXPECT_TRUE(a && check_axis(*a, base, test_catalogs().gpus, diags)) << diags.to_string();
  return *a;
}

Scenario scenario(const std::string& text) {
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("base.yaml", text, test_catalogs().gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string();
  return *s;
}

const EngineArg* arg(const Scenario& s, std::string_view flag) {
  for (const EngineArg& a : s.engine.args) {
    if (a.flag == flag) return &a;
  }
  return nullptr;
}

const std::string kSglang =
    "hardware: {gpu: h200, count: 2}\n"
    "engine:\n  name: sglang\n  version: 0.5.9\n"
    "  args:\n    --tp-size: 2\n    --mem-fraction-static: 0.8\n"
    "model: llama-3.1-8b-instruct\n";

TEST(SweepGrid, FirstAxisVariesSlowest) {
  const Scenario base = scenario(kSglang);
  const Grid grid({checked("--mem-fraction-static=0.7,0.8,0.9", base),
                   checked("--cuda-graph-max-bs=8,16", base)});
  ASSERT_EQ(grid.size(), 6u);
  EXPECT_EQ(grid.value(0, 0), "0.7");
  EXPECT_EQ(grid.value(0, 1), "8");
  EXPECT_EQ(grid.value(1, 0), "0.7");
  EXPECT_EQ(grid.value(1, 1), "16");
  EXPECT_EQ(grid.value(2, 0), "0.8");
  EXPECT_EQ(grid.value(2, 1), "8");
  EXPECT_EQ(grid.value(5, 0), "0.9");
  EXPECT_EQ(grid.value(5, 1), "16");
}

TEST(SweepGrid, GridSizeIsBounded) {
  Axis big;
  big.values.assign(10'000, "1");
  EXPECT_EQ(grid_size({big}), 10'000u);
  EXPECT_EQ(grid_size({big, big, Axis{}}), std::nullopt);  // an axis without values
  EXPECT_EQ(grid_size({big, big}), std::nullopt);          // 100,000,000 > 50,000,000
}

TEST(SweepGrid, PointsOverwriteGivenFlagsAndAddMissingOnes) {
  const Scenario base = scenario(kSglang);
  const Grid grid(
      {checked("--mem-fraction-static=0.7,0.9", base), checked("--cuda-graph-max-bs=8,16", base),
       checked("hardware.gpu=h100,h200", base), checked("NCCL_BUFFSIZE=1048576", base)});
  PointScenarios points(base, grid);
  std::string error;
  // Point 5 = (1, 0, 1, 0): 0.9, 8, h200.
  const Scenario& s = points.at(5, error);
  EXPECT_EQ(error, "");
  ASSERT_EQ(s.engine.args.size(), 3u);  // --tp-size, --mem-fraction-static, --cuda-graph-max-bs
  EXPECT_EQ(arg(s, "--mem-fraction-static")->values, std::vector<std::string>{"0.9"});
  EXPECT_EQ(arg(s, "--cuda-graph-max-bs")->values, std::vector<std::string>{"8"});
  EXPECT_EQ(arg(s, "--tp-size")->values, std::vector<std::string>{"2"});
  EXPECT_EQ(s.hardware.gpu, "h200");
  ASSERT_EQ(s.engine.env.size(), 1u);
  EXPECT_EQ(s.engine.env[0].name, "NCCL_BUFFSIZE");
  EXPECT_EQ(s.engine.env[0].value, "1048576");
  const Scenario& t = points.at(2, error);  // (0, 1, 0, 0): 0.7, 16, h100
  EXPECT_EQ(arg(t, "--mem-fraction-static")->values, std::vector<std::string>{"0.7"});
  EXPECT_EQ(arg(t, "--cuda-graph-max-bs")->values, std::vector<std::string>{"16"});
  EXPECT_EQ(t.hardware.gpu, "h100");
}

TEST(SweepGrid, VllmFlagIsFoundUnderItsUnderscoreSpelling) {
  const Scenario base = scenario(
      "hardware: {gpu: h200, count: 1}\n"
      "engine:\n  name: vllm\n  version: 0.11.0\n"
      "  args:\n    --max_model_len: 8192\n"
      "model: llama-3.1-8b-instruct\n");
  const Grid grid({checked("--max-model-len=4096,16384", base)});
  PointScenarios points(base, grid);
  std::string error;
  const Scenario& s = points.at(1, error);
  ASSERT_EQ(s.engine.args.size(), 1u);
  EXPECT_EQ(s.engine.args[0].flag, "--max_model_len");
  EXPECT_EQ(s.engine.args[0].values, std::vector<std::string>{"16384"});
}

TEST(SweepGrid, PreoccupiedGpuBeyondTheCountIsThePointsError) {
  const Scenario base = scenario(
      "hardware: {gpu: h200, count: 4, preoccupied: {3: 2GiB}}\n"
      "engine:\n  name: sglang\n  version: 0.5.9\n  args:\n    --tp-size: 2\n"
      "model: llama-3.1-8b-instruct\n");
  const Grid grid({checked("hardware.count=2,4", base)});
  PointScenarios points(base, grid);
  std::string error;
  points.at(0, error);
  EXPECT_EQ(error, "GPU index 3 in 'preoccupied' is outside 0..1");
  points.at(1, error);
  EXPECT_EQ(error, "");
}

}  // namespace
}  // namespace gpumem::sweep
