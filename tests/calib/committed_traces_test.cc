// Every probe trace committed under reports/probe: it parses, its steps are the steps the
// simulator's ledger has for the same scenario (same names, same order), and with the free
// memory it measured around the weights pinned (SGLang's F and A, vLLM's profile) on the
// machine's own CUDA total, the simulated start-up sizes the KV cache to exactly the token
// count the probe's run computed.
#include <gtest/gtest.h>

#include <filesystem>

#include "calib/calibration_file.h"
#include "calib/replayed_decisions.h"
#include "calib/trace.h"
#include "catalog/scenario.h"
#include "runtime/fact_ids.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const TestCatalogs& catalogs() { return test_catalogs(); }

const Fact* find(const std::vector<Fact>& facts, std::string_view id) {
  for (const Fact& f : facts) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

TEST(CommittedTraces, MatchTheLedgerStepByStepAndReplayTokensExactly) {
  const std::vector<std::string> dirs = find_trace_dirs(GPUMEM_SOURCE_DIR "/reports/probe");
  ASSERT_GE(dirs.size(), 15u);
  for (const std::string& dir : dirs) {
    SCOPED_TRACE(dir);
    Result<std::vector<Trace>> traces = read_trace_dir(dir);
    ASSERT_TRUE(traces.ok()) << traces.status().message();
    Diagnostics diags;
    std::optional<Scenario> s = load_scenario(dir + "/scenario.yaml", catalogs().gpus, diags);
    ASSERT_TRUE(s && diags.empty()) << diags.to_string();
    ASSERT_EQ(static_cast<int>(traces->size()), s->total_gpus());
    const GpuSpec& gpu = *catalogs().gpus.find(s->hardware.gpu);
    std::optional<Ledger> l = simulate_scenario(
        *s, SimulationInputs{catalogs().gpus, catalogs().models, default_constants(gpu)}, diags);
    ASSERT_TRUE(l) << diags.to_string();
    for (const Trace& t : *traces) {
      EXPECT_EQ(t.scenario, std::filesystem::path(dir).parent_path().filename().string());
      const GpuLedger& g = l->gpus[static_cast<size_t>(t.rank)];
      ASSERT_EQ(t.steps.size(), g.steps.size());
      for (size_t i = 0; i < t.steps.size(); ++i) {
        EXPECT_EQ(t.steps[i].name, g.steps[i].name);
        EXPECT_EQ(t.steps[i].outcome, "ok");
      }
    }
    // Replay with the measured profile pinned (SGLang: F and A; vLLM: weights, activation
    // peak, non-torch memory and graph estimate): the token count is the probe's, exactly.
    const Trace& t0 = traces->front();
    Scenario pinned = *s;
    // The traces store SGLang's F and A, vLLM's profile: which ones a trace has says which
    // engine ran it.
    const Fact* f = find(t0.facts, fact_id::kFreeBeforeWeights);
    const Fact* a = find(t0.facts, fact_id::kFreeAfterWeights);
    if (f != nullptr && a != nullptr) {
      pinned.observed.free_before_weights = std::get<Bytes>(f->value);
      pinned.observed.free_after_weights = std::get<Bytes>(a->value);
    } else {
      const Fact* weights = find(t0.facts, fact_id::kWeightsBytes);
      const Fact* peak = find(t0.facts, fact_id::kActivationPeakBytes);
      const Fact* non_torch = find(t0.facts, "non_torch_bytes");
      ASSERT_TRUE(weights && peak && non_torch);
      pinned.observed.model_loading = std::get<Bytes>(weights->value);
      pinned.observed.activation_peak = std::get<Bytes>(peak->value);
      pinned.observed.non_torch_memory = std::get<Bytes>(non_torch->value);
      if (const Fact* estimate = find(t0.facts, "cuda_graph_estimate_bytes")) {
        pinned.observed.cuda_graph_estimate = std::get<Bytes>(estimate->value);
      }
    }
    const Fact* tokens = find(t0.facts, fact_id::kKvTokens);
    ASSERT_TRUE(tokens);
    // vLLM's budget is the machine's CUDA total times the utilization: gpumem-probe's traced
    // total (a torch replay's decisions were made on the catalog's).
    const GpuCatalog machine = with_traced_machine(catalogs().gpus, *s, t0);
    std::optional<Ledger> replay = simulate_scenario(
        pinned, SimulationInputs{machine, catalogs().models, default_constants(gpu)}, diags);
    ASSERT_TRUE(replay) << diags.to_string();
    EXPECT_EQ(std::get<std::int64_t>(replay->gpus.front().fact(fact_id::kKvTokens)->value),
              std::get<std::int64_t>(tokens->value));
  }
}

}  // namespace
}  // namespace gpumem
