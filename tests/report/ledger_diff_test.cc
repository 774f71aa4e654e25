// The CI gate works: change one constant of a memory formula (through the constants a
// calibration would override), simulate again, and the diff names the scenario's GPUs, the
// step and the delta.
#include "report/ledger_diff.h"

#include <gtest/gtest.h>

#include "support/bundled_scenario.h"

namespace gpumem {
namespace {

TEST(LedgerDiff, NoChangeNoEntries) {
  const Ledger a = simulate_bundled("h200x2-llama-3.1-8b-tp2", {});
  EXPECT_TRUE(diff_ledgers(a, a).empty());
}

TEST(LedgerDiff, AChangedWorkspaceConstantIsNamedByStepGpuAndDelta) {
  const Ledger before = simulate_bundled("h200x2-llama-3.1-8b-tp2", {});
  SimulationConstants changed;
  changed.engines.sglang.cublas.size_sm90 = mib(34);  // 32 MiB + 2 MiB
  const Ledger after = simulate_bundled("h200x2-llama-3.1-8b-tp2", changed);
  const std::vector<LedgerChange> changes = diff_ledgers(before, after);
  ASSERT_FALSE(changes.empty());
  // The first change is the cublas step's own: both GPUs, +2 MiB.
  const LedgerChange& first = changes.front();
  EXPECT_EQ(first.gpus, "GPUs 0-1");
  EXPECT_EQ(first.where, "cublas");
  EXPECT_EQ(first.what, "change");
  EXPECT_EQ(first.before, "32.00 MiB");
  EXPECT_EQ(first.after, "34.00 MiB");
  EXPECT_EQ(first.delta, "+2.00 MiB");
  const std::string table = render_diff(after.scenario, changes);
  EXPECT_NE(table.find("## h200x2-llama-3.1-8b-tp2: "), std::string::npos);
  EXPECT_NE(table.find("| GPUs 0-1 | cublas | change | 32.00 MiB | 34.00 MiB | +2.00 MiB |"),
            std::string::npos)
      << table;
}

TEST(LedgerDiff, AChangeThatBreaksTheFitIsReported) {
  const Ledger before = simulate_bundled("h200x1-llama-3.1-8b", {});
  SimulationConstants changed;
  changed.device.context_per_thread_slot = bytes(600'000);  // a 150 GiB context
  const Ledger after = simulate_bundled("h200x1-llama-3.1-8b", changed);
  const std::vector<LedgerChange> changes = diff_ledgers(before, after);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.front().where, "result");
  EXPECT_EQ(changes.front().before, "yes");
  EXPECT_EQ(changes.front().after, "no");
}

}  // namespace
}  // namespace gpumem
