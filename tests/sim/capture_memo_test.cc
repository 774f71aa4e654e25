#include "sim/capture_memo.h"

#include <gtest/gtest.h>

#include <optional>

namespace gpumem {
namespace {

GpuSpec gpu(Bytes cuda_total) {
  GpuSpec g;
  g.name = "test-gpu";
  g.memory_total = cuda_total + mib(640);
  g.cuda_total = cuda_total;
  g.sm_count = 132;
  g.max_threads_per_sm = 2048;
  return g;
}

// One rank after its "KV cache": a tensor of `kv` bytes in its own segment (rounded up to
// 2 MiB, the rest a free block when over 1 MiB), then a 32 MiB workspace.
struct Rank {
  Rank(Bytes kv, CaptureMemo* memo, Bytes preoccupied = mib(300))
      : device(gpu(gib(80)), DeviceConstants{}, preoccupied),
        allocator(device, AllocatorConfig{}),
        runs(device, allocator, memo, /*single_rank=*/true) {
    EXPECT_TRUE(allocator.allocate(kib(600), Category::kWeights).ok());
    EXPECT_TRUE(allocator.allocate(kv, Category::kKvCache).ok());
    EXPECT_TRUE(allocator.allocate(mib(32), Category::kWorkspace).ok());
  }
  SimDevice device;
  CachingAllocator allocator;
  SimMemoizedRuns runs;
};

const RunKeyOf<int> kKey(1);

// A capture's shape: eager requests of 1.5 MiB and 64 KiB in the default pools, freed; a
// graph pool's 30 MiB; the free memory read after.
Status body(Rank& r, FreeReadings& free) {
  Result<BlockHandle> a = r.allocator.allocate(kib(1536), Category::kActivations);
  if (!a.ok()) return a.status();
  Result<BlockHandle> b = r.allocator.allocate(kib(64), Category::kActivations);
  if (!b.ok()) return b.status();
  GPUMEM_RETURN_IF_ERROR(r.allocator.free(*a));
  GPUMEM_RETURN_IF_ERROR(r.allocator.free(*b));
  const PoolId pool = r.allocator.create_pool();
  GPUMEM_RETURN_IF_ERROR(r.allocator.begin_allocate_to_pool(pool));
  Result<BlockHandle> c = r.allocator.allocate(mib(30), Category::kActivations);
  Status s = c.status();
  if (c.ok()) s = r.allocator.free(*c);
  GPUMEM_RETURN_IF_ERROR(r.allocator.end_allocate_to_pool(pool));
  GPUMEM_RETURN_IF_ERROR(s);
  GPUMEM_RETURN_IF_ERROR(r.device.begin_graph_capture());
  GPUMEM_RETURN_IF_ERROR(r.device.launch_kernels(40, bytes(0)));
  GPUMEM_RETURN_IF_ERROR(r.device.end_graph_capture().status());
  free.push_back(r.device.mem_get_info().free);
  return {};
}

struct Outcome {
  Status status;
  FreeReadings free;
};

Outcome run(Rank& r) {
  Outcome o;
  o.status = r.runs.run(
      kKey, [&r](FreeReadings& f) { return body(r, f); }, o.free);
  return o;
}

// The run through the memo leaves what a replay without it leaves: allocator, device, and
// readings.
void expect_same_as_replay(Rank& memoized, const Outcome& got, Bytes kv, Bytes preoccupied) {
  Rank plain(kv, nullptr, preoccupied);
  const Outcome want = run(plain);
  EXPECT_EQ(got.status.code(), want.status.code());
  EXPECT_EQ(got.status.message(), want.status.message());
  EXPECT_EQ(got.free, want.free);
  EXPECT_TRUE(memoized.device.state() == plain.device.state());
  EXPECT_TRUE(memoized.allocator.snapshot_with_pools() == plain.allocator.snapshot_with_pools());
}

TEST(CaptureMemo, AnotherKvSizeWithAnInvisibleRemainderIsRestoredExactly) {
  CaptureMemo memo;
  {
    Rank r(mib(100) + kib(700), &memo);  // remainder 1,348 KiB: below the 1.5 MiB request
    expect_same_as_replay(r, run(r), mib(100) + kib(700), mib(300));
  }
  EXPECT_EQ(memo.hits(), 0);
  EXPECT_EQ(memo.misses(), 1);
  // Remainders of 1,248, 1,148 and 1,200 KiB: other sizes, still below every request.
  for (Bytes kv : {mib(332) + kib(800), mib(40) + kib(900), mib(10) + kib(848)}) {
    Rank r(kv, &memo, mib(1000));
    expect_same_as_replay(r, run(r), kv, mib(1000));
  }
  EXPECT_EQ(memo.hits(), 3);
}

TEST(CaptureMemo, MissesWhenAKvRemainderWouldServeARequest) {
  CaptureMemo memo;
  {
    Rank r(mib(100) + kib(700), &memo);
    run(r);
  }
  // A remainder of 1,748 KiB is the best fit of the 1.5 MiB request.
  Rank r(mib(100) + kib(300), &memo);
  const Outcome got = run(r);
  EXPECT_EQ(memo.hits(), 0);
  EXPECT_EQ(memo.misses(), 2);
  expect_same_as_replay(r, got, mib(100) + kib(300), mib(300));
}

TEST(CaptureMemo, MissesWhenACudaMallocNoLongerFits) {
  CaptureMemo memo;
  const Bytes kv = mib(100) + kib(700);
  Bytes free;
  {
    Rank r(kv, &memo);
    free = r.device.total() - r.device.used();
    run(r);
  }
  // A KV tensor larger by whole 2 MiB pages leaves 40 MiB and a bit: room for the eager
  // 20 MiB segment but not for the graph pool's 30 MiB.
  const Bytes tight = kv + (free - mib(40)) / mib(2) * mib(2);
  Rank r(tight, &memo);
  const Outcome got = run(r);
  EXPECT_EQ(got.status.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(memo.hits(), 0);
  expect_same_as_replay(r, got, tight, mib(300));
  // A failed capture is not stored: a run with room is answered from the first entry.
  Rank roomy(mib(40) + kib(900), &memo);
  expect_same_as_replay(roomy, run(roomy), mib(40) + kib(900), mib(300));
  EXPECT_EQ(memo.hits(), 1);
}

TEST(CaptureMemo, WithoutOneRankEveryBodyRuns) {
  CaptureMemo memo;
  for (int i = 0; i < 2; ++i) {
    SimDevice device(gpu(gib(80)), DeviceConstants{}, mib(300));
    CachingAllocator allocator(device, AllocatorConfig{});
    SimMemoizedRuns runs(device, allocator, &memo, /*single_rank=*/false);
    FreeReadings free;
    int ran = 0;
    EXPECT_TRUE(runs.run(
                        kKey, [&](FreeReadings&) { return ++ran, Status{}; }, free)
                    .ok());
    EXPECT_EQ(ran, 1);
  }
  EXPECT_EQ(memo.hits() + memo.misses(), 0);
}

}  // namespace
}  // namespace gpumem
