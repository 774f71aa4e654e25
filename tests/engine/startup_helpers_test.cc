// The rank layout both engines share: replica-major, then pipeline stage, then TP rank.
#include "engine/startup_helpers.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

TEST(RankGroups, ReplicaThenStageThenTpRank) {
  // TP 2 x PP 2 x 2 replicas (SGLang --dp-size 2): rank 5 is replica 1, stage 0, TP rank 1.
  RankGroups g = rank_groups(5, 2, 2, 2);
  EXPECT_EQ(g.tp, (std::vector<int>{4, 5}));
  EXPECT_EQ(g.pp, (std::vector<int>{5, 7}));
  // vLLM's DP group: stage 0, TP rank 1 of each replica; its EP group: stage 0's TP ranks of
  // each replica.
  EXPECT_EQ(g.dp, (std::vector<int>{1, 5}));
  EXPECT_EQ(g.stage_across_replicas, (std::vector<int>{0, 1, 4, 5}));
  // Rank 2 of one replica: stage 1, TP rank 0.
  g = rank_groups(2, 2, 2, 1);
  EXPECT_EQ(g.tp, (std::vector<int>{2, 3}));
  EXPECT_EQ(g.pp, (std::vector<int>{0, 2}));
  EXPECT_EQ(g.dp, (std::vector<int>{2}));
  EXPECT_EQ(g.stage_across_replicas, (std::vector<int>{2, 3}));
  // TP 8, one stage: every rank in one group, a pipeline of itself.
  g = rank_groups(6, 8, 1, 1);
  EXPECT_EQ(g.tp, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(g.pp, (std::vector<int>{6}));
  // TP 1 x 8 replicas (vLLM -dp 8): every rank in one DP group and one EP group.
  g = rank_groups(3, 1, 1, 8);
  EXPECT_EQ(g.tp, (std::vector<int>{3}));
  EXPECT_EQ(g.dp, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(g.stage_across_replicas, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
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
