// gpumem export-ops: the operation trace of a bundled probe scenario, exact to the byte; the
// exported program makes the very decisions `gpumem simulate` makes, for every probe
// scenario (its facts and the allocator's numbers at each step are the ledger's); and what a
// PyTorch process cannot be told is refused.
#include "opstrace/export_ops.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "calib/calibration_file.h"
#include "runtime/ledger_json.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const TestCatalogs& catalogs() { return test_catalogs(); }

// The committed H200 calibration, as the CLI picks it for H200 scenarios.
SimulationConstants h200_constants() {
  Diagnostics diags;
  std::optional<CalibrationFile> f = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/h200-sxm-141gb.yaml", catalogs().gpus, diags);
  EXPECT_TRUE(f && diags.empty()) << diags.to_string();
  return constants_from(*f, *catalogs().gpus.find("h200-sxm-141gb"));
}

struct Exported {
  Scenario scenario;
  std::vector<nlohmann::ordered_json> traces;
};

Exported export_scenario(const std::string& relative) {
  Diagnostics diags;
  std::optional<Scenario> s =
      load_scenario(GPUMEM_SOURCE_DIR "/" + relative, catalogs().gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string();
  const SimulationConstants constants = h200_constants();
  std::optional<SimulatedStartup> run =
      simulated_startup(*s, SimulationInputs{catalogs().gpus, catalogs().models, constants}, diags);
  EXPECT_TRUE(run && diags.empty()) << diags.to_string();
  OpsTraceHeader h;
  h.scenario = s->name;
  h.scenario_file = relative;
  h.gpu_type = "h200-sxm-141gb";
  h.calibration = constants.name;
  h.interconnect_modelled = "nvlink";
  Result<std::vector<nlohmann::ordered_json>> t = export_ops(*run, constants.engines, h);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return {*s, t.ok() ? *t : std::vector<nlohmann::ordered_json>{}};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ExportOps, BundledScenarioTraceIsExact) {
  const Exported e = export_scenario("scenarios/probe/h200x1-mistral7b-nographs.yaml");
  ASSERT_EQ(e.traces.size(), 1u);
  // Regenerate with: gpumem export-ops scenarios/probe/h200x1-mistral7b-nographs.yaml -o DIR
  EXPECT_EQ(
      ops_trace_text(e.traces[0]),
      read_text(GPUMEM_SOURCE_DIR "/tests/data/opstrace/h200x1-mistral7b-nographs.ops.rank0.json"));
}

TEST(ExportOps, CountsOfABundledScenarioWithGraphs) {
  const Exported e = export_scenario("scenarios/probe/h200x1-llama8b.yaml");
  ASSERT_EQ(e.traces.size(), 1u);
  std::map<std::string, int> counts;
  std::int64_t kernels = 0;
  for (const auto& op : e.traces[0]["ops"]) {
    ++counts[op[0].get<std::string>()];
    if (op[0] == "kernels") kernels += op[1].get<std::int64_t>();
  }
  // 36 batch sizes, each captured once into the one pool, after a warm-up that made no
  // new segment (so a single eager forward, then the captured one).
  EXPECT_EQ(counts, (std::map<std::string, int>{{"alloc", 1236},
                                                {"capture_begin", 36},
                                                {"capture_end", 36},
                                                {"context", 1},
                                                {"empty_cache", 8},
                                                {"end", 9},
                                                {"free", 962},
                                                {"host_min", 36},
                                                {"kernels", 2442},
                                                {"library", 1},
                                                {"log", 44},
                                                {"mem_get_info", 46},
                                                {"pool_begin", 36},
                                                {"pool_create", 1},
                                                {"pool_end", 36},
                                                {"step", 9},
                                                {"torch", 2}}));
  EXPECT_EQ(kernels, 28'860);
}

// The exporter runs every rank on its own, over recording seams: for every probe scenario,
// on every rank, its facts and the allocator's numbers after each step must be exactly those
// of simulate_scenario, which shares a class of identical ranks.
TEST(ExportOps, EveryProbeScenarioMakesTheSimulatorsDecisions) {
  int scenarios = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(GPUMEM_SOURCE_DIR "/scenarios/probe")) {
    const std::string relative = "scenarios/probe/" + entry.path().filename().string();
    SCOPED_TRACE(relative);
    const Exported e = export_scenario(relative);
    Diagnostics diags;
    std::optional<Ledger> l = simulate_scenario(
        e.scenario, SimulationInputs{catalogs().gpus, catalogs().models, h200_constants()}, diags);
    ASSERT_TRUE(l) << diags.to_string();
    ASSERT_EQ(e.traces.size(), l->gpus.size());
    for (size_t r = 0; r < e.traces.size(); ++r) {
      const nlohmann::ordered_json& t = e.traces[r];
      EXPECT_EQ(t["rank"], static_cast<int>(r));
      EXPECT_EQ(t["facts"].dump(), facts_to_json(l->gpus[r].facts).dump());
      size_t step = 0;
      for (const auto& op : t["ops"]) {
        if (op[0] != "end") continue;
        ASSERT_LT(step, l->gpus[r].steps.size());
        const LedgerStep& s = l->gpus[r].steps[step++];
        EXPECT_EQ(op[3]["allocated"], s.allocated_after.value()) << s.name;
        EXPECT_EQ(op[3]["reserved"], s.reserved_after.value()) << s.name;
      }
      EXPECT_EQ(step, l->gpus[r].steps.size());
    }
    ++scenarios;
  }
  EXPECT_EQ(scenarios, 47);
}

TEST(ExportOps, AllocatorSettingsBecomePytorchCudaAllocConf) {
  AllocatorConfig c;
  EXPECT_EQ(*pytorch_alloc_conf(c), "");
  c.max_split_size = mib(200);
  EXPECT_EQ(*pytorch_alloc_conf(c), "max_split_size_mb:200");
  c.max_non_split_rounding = mib(40);
  EXPECT_EQ(*pytorch_alloc_conf(c), "max_split_size_mb:200,max_non_split_rounding_mb:40");
  c.expandable_segments = true;
  EXPECT_EQ(*pytorch_alloc_conf(c),
            "max_split_size_mb:200,max_non_split_rounding_mb:40,expandable_segments:True");
  AllocatorConfig grows;
  grows.expandable_segments = true;
  EXPECT_EQ(*pytorch_alloc_conf(grows), "expandable_segments:True");
  c.max_split_size = mib(200) + bytes(1);
  EXPECT_EQ(pytorch_alloc_conf(c).status().message(),
            "ops trace: max_split_size is not a whole number of MiB");
  AllocatorConfig odd;
  odd.small_buffer = mib(4);
  EXPECT_EQ(pytorch_alloc_conf(odd).status().message(),
            "ops trace: the allocator's size constants differ from PyTorch's, which no "
            "PYTORCH_CUDA_ALLOC_CONF option sets");
}

}  // namespace
}  // namespace gpumem
