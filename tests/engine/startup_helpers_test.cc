// The rank layout both engines share: replica-major, then pipeline stage, then TP rank.
#include "engine/startup_helpers.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

TEST(RankGroups, ReplicaThenStageThenTpRank) {
  // TP 2 x PP 2 x 2 replicas (SGLang --dp-size 2): rank 5 is replica 1, stage 0, TP rank 1.
  RankGroups g = rank_groups(5, 2, 2);
  EXPECT_EQ(g.tp, (std::vector<int>{4, 5}));
  EXPECT_EQ(g.pp, (std::vector<int>{5, 7}));
  // Rank 2 of one replica: stage 1, TP rank 0.
  g = rank_groups(2, 2, 2);
  EXPECT_EQ(g.tp, (std::vector<int>{2, 3}));
  EXPECT_EQ(g.pp, (std::vector<int>{0, 2}));
  // TP 8, one stage: every rank in one group, a pipeline of itself.
  g = rank_groups(6, 8, 1);
  EXPECT_EQ(g.tp, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(g.pp, (std::vector<int>{6}));
}

TEST(CublasWorkspace, HopperAndLaterTakeThirtyTwoMiB) {
  GpuSpec ampere;
  ampere.compute_capability_major = 8;
  GpuSpec hopper;
  hopper.compute_capability_major = 9;
  const CublasWorkspace w;
  EXPECT_EQ(w.for_gpu(ampere), bytes(8'519'680));
  EXPECT_EQ(w.for_gpu(hopper), mib(32));
}

}  // namespace
}  // namespace gpumem
