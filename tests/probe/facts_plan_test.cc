#include "probe/facts_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace gpumem::probe {
namespace {

TEST(FactsPlan, SweepCountsKeepTheTotalNearHalfAGibibyte) {
  // Expected counts: min(4096, max(2, floor(512 MiB / size))), computed independently.
  const std::vector<std::pair<std::int64_t, int>> want = {
      {256, 4096},      {4'096, 4096},    {65'536, 4096},   {524'288, 1024},  {1'048'576, 512},
      {1'048'577, 511}, {1'572'864, 341}, {2'097'152, 256}, {2'097'153, 255}, {3'145'728, 170},
      {8'392'064, 63},  {10'485'760, 51}, {262'668'288, 2}};
  const std::vector<SweepPoint> sweep = malloc_sweep();
  ASSERT_EQ(sweep.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(sweep[i].size.value(), want[i].first) << i;
    EXPECT_EQ(sweep[i].count, want[i].second) << i;
  }
  EXPECT_EQ(sweep_count(gib(1)), 2);
}

TEST(FactsPlan, NcclMatrix) {
  const std::vector<NcclCase> cases = nccl_cases();
  ASSERT_EQ(cases.size(), 27u);  // 2 x 2 x 2 x 3, two host-staged cases, two communicators
  EXPECT_EQ(cases[0].name, "cumem=0 runtime_connect=0 buffsize=default channels=default");
  EXPECT_EQ(cases[4].name, "cumem=0 runtime_connect=0 buffsize=1048576 channels=2");
  EXPECT_EQ(cases[23].name, "cumem=1 runtime_connect=1 buffsize=1048576 channels=8");
  EXPECT_TRUE(cases[24].settings.p2p_disable.value_or(false));
  EXPECT_TRUE(cases[24].host_staged);
  EXPECT_EQ(cases[25].settings.p2p_level.value_or(""), "LOC");
  EXPECT_TRUE(cases[26].second_communicator);
  std::set<std::string> names;
  for (const NcclCase& c : cases) names.insert(c.name);
  EXPECT_EQ(names.size(), cases.size());
}

TEST(FactsPlan, JobsOnTwoGpus) {
  const std::vector<FactJob> jobs = facts_plan(2);
  // 1 provenance + 3 context + 1 cuMem + 13 malloc + 1 graph nodes + 1 cuBLAS single-GPU
  // jobs; 27 NCCL + 2 graph all-reduce + 1 IPC two-GPU jobs.
  ASSERT_EQ(jobs.size(), 50u);
  const auto singles =
      std::count_if(jobs.begin(), jobs.end(), [](const FactJob& j) { return j.ranks == 1; });
  EXPECT_EQ(singles, 20);
  // Single-GPU jobs first.
  EXPECT_TRUE(
      std::is_partitioned(jobs.begin(), jobs.end(), [](const FactJob& j) { return j.ranks == 1; }));
  std::set<std::string> names;
  for (const FactJob& j : jobs) names.insert(j.name);
  EXPECT_EQ(names.size(), jobs.size());

  const FactJob& first_nccl = jobs[20];
  EXPECT_EQ(first_nccl.name, "nccl default settings, two communicators");
  EXPECT_EQ(first_nccl.index, 26);
  EXPECT_TRUE(first_nccl.nccl_debug);
  const auto has = [&](const FactJob& j, std::string k, std::string v) {
    return std::find(j.env_set.begin(), j.env_set.end(), std::pair(k, v)) != j.env_set.end();
  };
  EXPECT_TRUE(has(first_nccl, "NCCL_NVLS_ENABLE", "0"));
  EXPECT_NE(
      std::find(first_nccl.env_unset.begin(), first_nccl.env_unset.end(), "NCCL_CUMEM_ENABLE"),
      first_nccl.env_unset.end());

  const auto ctx = std::find_if(jobs.begin(), jobs.end(), [](const FactJob& j) {
    return j.name == "context CUDA_MODULE_LOADING=EAGER";
  });
  ASSERT_NE(ctx, jobs.end());
  EXPECT_TRUE(has(*ctx, "CUDA_MODULE_LOADING", "EAGER"));

  const auto p2p = std::find_if(jobs.begin(), jobs.end(), [](const FactJob& j) {
    return j.name == "nccl p2p_disable=1 (host-staged transport, PCIe emulation)";
  });
  ASSERT_NE(p2p, jobs.end());
  EXPECT_EQ(p2p->ranks, 2);
  EXPECT_TRUE(has(*p2p, "NCCL_P2P_DISABLE", "1"));
}

TEST(FactsPlan, OneGpuKeepsHostStagedCasesAtTwoRanks) {
  const std::vector<FactJob> jobs = facts_plan(1);
  const auto two_rank =
      std::count_if(jobs.begin(), jobs.end(), [](const FactJob& j) { return j.ranks == 2; });
  EXPECT_EQ(two_rank, 3);  // the two host-staged NCCL cases and IPC
}

TEST(FactsPlan, KindNamesRoundTrip) {
  for (FactKind k : {FactKind::kCountGpus, FactKind::kProvenance, FactKind::kContext,
                     FactKind::kMalloc, FactKind::kCuMem, FactKind::kIpc, FactKind::kNccl,
                     FactKind::kGraphNodes, FactKind::kGraphNccl, FactKind::kCublas}) {
    auto back = fact_kind_from_name(fact_kind_name(k));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, k);
  }
  EXPECT_EQ(fact_kind_from_name("mallocs").status().message(),
            "unknown measurement kind 'mallocs'");
}

}  // namespace
}  // namespace gpumem::probe
