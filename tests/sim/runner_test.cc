#include "sim/runner.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

SimMachine h200x(int /*gpus*/) {
  SimMachine m;
  m.gpu.name = "h200-sxm-141gb";
  m.gpu.memory_total = mib(143'771);
  m.gpu.cuda_total = mib(143'156);
  m.gpu.sm_count = 132;
  m.gpu.max_threads_per_sm = 2048;
  m.links.interconnect = NcclInterconnect::kNvlink;
  m.links.compute_capability = 90;
  m.links.resident_threads = 132 * 2048;
  return m;
}

std::vector<SimRank> ranks(int n, Bytes preoccupied_on_last = bytes(0)) {
  std::vector<SimRank> out;
  for (int r = 0; r < n; ++r) {
    SimRank s;
    s.rank = s.local_rank = r;
    s.preoccupied = r == n - 1 ? preoccupied_on_last : bytes(0);
    s.signature = s.preoccupied.value() == 0 ? "plain" : "busy";
    out.push_back(s);
  }
  return out;
}

// A small program: context, one communicator with its first all-reduce, then a MIN of free
// memory recorded as a fact, then a large allocation.
void program(RankEnv& env, Bytes big) {
  if (!env.step("context", [&] { return env.device.init_context(); }).ok()) return;
  CommunicatorId comm;
  Status s = env.step("nccl", [&]() -> Status {
    std::vector<int> all;
    for (int r = 0; r < env.world_size; ++r) all.push_back(r);
    Result<CommunicatorId> c = env.comm.create_communicator(all, NcclSettings{});
    if (!c.ok()) return c.status();
    comm = *c;
    return env.comm.all_reduce(comm, DevicePtr{}, bytes(4));
  });
  if (!s.ok()) return;
  s = env.step("min_free", [&]() -> Status {
    Result<Bytes> m = env.comm.min_over_world(env.device.mem_get_info().free, true);
    if (!m.ok()) return m.status();
    env.fact({"f", "F", *m});
    return {};
  });
  if (!s.ok()) return;
  s = env.step("big", [&]() -> Status {
    Result<BlockHandle> b = env.allocator.allocate(big, Category::kWeights);
    return b.status();
  });
  if (!s.ok()) return;
  (void)env.step("after", [&]() -> Status { return env.comm.barrier(); });
}

TEST(Runner, TwoNvlinkRanksNcclMemoryMatchesH200Measurement) {
  std::vector<GpuLedger> out =
      run_ranks(h200x(2), ranks(2), [](RankEnv& env) { program(env, gib(1)); });
  ASSERT_EQ(out.size(), 2u);
  const LedgerStep& nccl = out[0].steps[1];
  // init: 32 p2p channels x 3 tables x 2 MiB + 4 MiB device comm = 196 MiB, kernel image
  // 170 MiB, 22 MiB NCCL logs no allocation for; first all-reduce: 24 x (10 + 2) MiB ring
  // buffers + 186 MiB kernel stack. Measured on H200 x2 (NCCL 2.28.9, probe facts nccl.json):
  // 388 MiB at init, 474 MiB at the first all-reduce.
  EXPECT_EQ(nccl.delta().value(), (388LL + 474) << 20);
  EXPECT_EQ(out[1].steps[1].delta(), nccl.delta());
  EXPECT_EQ(out[1].rank, 1);
  EXPECT_TRUE(out[0].completed());
}

TEST(Runner, MinOverRanksSeesTheBusiestGpuAndItsOomStopsTheOthers) {
  // GPU 1 has 100 GiB taken by another process: its 40 GiB allocation fails, GPU 0 aborts at
  // the next collective.
  std::vector<GpuLedger> out =
      run_ranks(h200x(2), ranks(2, gib(100)), [](RankEnv& env) { program(env, gib(40)); });
  const Bytes f0 = std::get<Bytes>(out[0].fact("f")->value);
  const Bytes f1 = std::get<Bytes>(out[1].fact("f")->value);
  EXPECT_EQ(f0, f1);
  // float32 of GPU 1's free bytes: 143156 MiB - 100 GiB - 553,648,128 B context - 862 MiB
  // NCCL = 41,278,242,816 B (39,366 MiB, exact in float32)
  EXPECT_EQ(f1.value(), 41'278'242'816);
  ASSERT_EQ(out[1].failed_step()->name, "big");
  EXPECT_EQ(out[1].failed_step()->outcome, StepOutcome::kOutOfMemory);
  EXPECT_EQ(out[1].failed_step()->requested.value(), 40LL << 30);
  ASSERT_NE(out[0].failed_step(), nullptr);
  EXPECT_EQ(out[0].failed_step()->name, "after");
  EXPECT_EQ(out[0].failed_step()->outcome, StepOutcome::kAborted);
  EXPECT_EQ(out[0].failed_step()->message, "peer GPU 1 (step 'big') failed");
}

TEST(Runner, IdenticalRanksAreReportedForEveryGpu) {
  std::vector<GpuLedger> out =
      run_ranks(h200x(8), ranks(8), [](RankEnv& env) { program(env, gib(1)); });
  ASSERT_EQ(out.size(), 8u);
  for (int r = 0; r < 8; ++r) {
    EXPECT_EQ(out[static_cast<size_t>(r)].rank, r);
    EXPECT_EQ(out[static_cast<size_t>(r)].steps.size(), 5u);
  }
}

// Pipeline stages with different layer counts make different numbers of all-reduces in their
// own tensor-parallel groups before a MIN over the world (vLLM's KV blocks): the MIN must see
// every stage's value, not pair one stage's all-reduce with another's MIN (which read 0).
TEST(Runner, AllReducesOfOneStageDoNotMeetAnotherStagesMin) {
  std::vector<SimRank> stages = ranks(2);
  stages[1].signature = "last stage";
  std::vector<GpuLedger> out = run_ranks(h200x(2), stages, [](RankEnv& env) {
    (void)env.step("stage", [&]() -> Status {
      GPUMEM_RETURN_IF_ERROR(env.device.init_context());
      Result<CommunicatorId> c = env.comm.create_communicator({env.rank}, NcclSettings{});
      if (!c.ok()) return c.status();
      for (int layer = 0; layer < (env.rank == 0 ? 27 : 26); ++layer) {
        GPUMEM_RETURN_IF_ERROR(env.comm.all_reduce(*c, DevicePtr{}, bytes(4)));
      }
      Result<std::int64_t> m = env.comm.min_over_world(env.rank == 0 ? 125'702 : 131'824);
      if (!m.ok()) return m.status();
      env.fact({"blocks", "MIN of blocks", *m});
      return {};
    });
  });
  ASSERT_EQ(out.size(), 2u);
  for (const GpuLedger& g : out) {
    ASSERT_TRUE(g.completed()) << g.failed_step()->message;
    EXPECT_EQ(std::get<std::int64_t>(g.fact("blocks")->value), 125'702);
  }
}

}  // namespace
}  // namespace gpumem
