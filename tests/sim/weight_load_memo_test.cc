#include "sim/weight_load_memo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

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

// 30 layers of a 25 MiB, a 3 MiB and a 600 KiB tensor, a 100 B one every third layer, and
// a transient 7 MiB copy freed after the next tensor: large tensors leave split remainders
// that later ones fill, small ones share 2 MiB segments.
WeightList model_weights() {
  std::vector<WeightTensor> ts;
  auto add = [&](Bytes b) {
    WeightTensor t;
    t.name = "t" + std::to_string(ts.size());
    t.bytes = b;
    ts.push_back(t);
  };
  for (int layer = 0; layer < 30; ++layer) {
    add(mib(25));
    add(mib(3));
    add(kib(600));
    if (layer % 3 == 0) add(bytes(100));
    if (layer % 5 == 0) {
      add(mib(7));
      ts.back().released_after = static_cast<int>(ts.size());
    }
  }
  return std::make_shared<const std::vector<WeightTensor>>(std::move(ts));
}

// One rank's device and allocator, with some memory in use before the weights: a 9 MiB
// tensor kept, a 5 MiB one freed (cached), a small one kept.
// The memo every Rank of a test shares, as the ranks of one simulation run share theirs.
WeightLoadMemo& shared_memo() {
  static WeightLoadMemo memo;
  return memo;
}

struct Rank {
  explicit Rank(Bytes cuda_total = gib(80))
      : device(gpu(cuda_total), DeviceConstants{}, mib(300)),
        allocator(device, AllocatorConfig{}),
        loads(device, &shared_memo()) {
    EXPECT_TRUE(allocator.allocate(mib(9), Category::kCommunication).ok());
    Result<BlockHandle> cached = allocator.allocate(mib(5), Category::kActivations);
    EXPECT_TRUE(cached.ok());
    EXPECT_TRUE(allocator.free(*cached).ok());
    EXPECT_TRUE(allocator.allocate(bytes(4), Category::kCommunication).ok());
  }
  SimDevice device;
  CachingAllocator allocator;
  SimWeightLoads loads;
  std::vector<BlockHandle> later;  // the blocks a load leaves for a later step
};

void expect_same_state(Rank& a, Rank& b) {
  EXPECT_TRUE(a.device.state() == b.device.state());
  const std::optional<CachingAllocator::State> sa = a.allocator.snapshot();
  const std::optional<CachingAllocator::State> sb = b.allocator.snapshot();
  ASSERT_TRUE(sa && sb);
  EXPECT_TRUE(*sa == *sb);
}

TEST(WeightLoadMemo, ALoadFromAStateSeenBeforeRestoresWhatTheReplayLeft) {
  const WeightList w = model_weights();
  Rank replayed;
  ASSERT_TRUE(replayed.loads.load(replayed.allocator, w, replayed.later).ok());
  EXPECT_EQ(replayed.loads.restored(), 0);

  Rank memoised;
  ASSERT_TRUE(memoised.loads.load(memoised.allocator, w, memoised.later).ok());
  EXPECT_EQ(memoised.loads.restored(), 1);
  expect_same_state(replayed, memoised);
  // Each 25 MiB tensor has a 26 MiB segment of its own (no cached block is ever that large,
  // and the 1 MiB left is too little to split off).
  const std::vector<SimDevice::Allocation>& segments = memoised.device.state().allocations;
  EXPECT_EQ(std::count_if(segments.begin(), segments.end(),
                          [](const SimDevice::Allocation& a) { return a.size == mib(26); }),
            30);
  EXPECT_EQ(memoised.device.used(), replayed.device.used());
  EXPECT_EQ(memoised.allocator.max_memory_allocated(), replayed.allocator.max_memory_allocated());
  EXPECT_EQ(memoised.allocator.stats().device_mallocs, replayed.allocator.stats().device_mallocs);

  // The restored allocator goes on exactly as the replayed one: same addresses, same cache.
  for (Bytes size : {mib(1) + bytes(1), mib(30), kib(3)}) {
    Result<BlockHandle> x = replayed.allocator.allocate(size, Category::kKvCache);
    Result<BlockHandle> y = memoised.allocator.allocate(size, Category::kKvCache);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(replayed.allocator.address(*x)->address, memoised.allocator.address(*y)->address);
  }
  replayed.allocator.empty_cache();
  memoised.allocator.empty_cache();
  expect_same_state(replayed, memoised);
}

TEST(WeightLoadMemo, ARestoredLoadHandsBackTheBlocksALaterStepFrees) {
  // A draft's embedding and head stay allocated until the speculative worker frees them:
  // here the first and the last 25 MiB tensors. Both loads hand back the same two blocks,
  // and freeing them leaves both ranks alike, their two 26 MiB segments returned.
  std::vector<WeightTensor> ts(*model_weights());
  ts.front().released_after = kReleasedLater;
  std::find_if(ts.rbegin(), ts.rend(), [](const WeightTensor& t) {
    return t.bytes == mib(25);
  })->released_after = kReleasedLater;
  const WeightList w = std::make_shared<const std::vector<WeightTensor>>(std::move(ts));
  Rank replayed;
  ASSERT_TRUE(replayed.loads.load(replayed.allocator, w, replayed.later).ok());
  Rank memoised;
  ASSERT_TRUE(memoised.loads.load(memoised.allocator, w, memoised.later).ok());
  EXPECT_EQ(memoised.loads.restored(), 1);
  ASSERT_EQ(replayed.later.size(), 2u);
  ASSERT_EQ(memoised.later.size(), 2u);
  const Bytes used = replayed.device.used();
  for (Rank* r : {&replayed, &memoised}) {
    for (BlockHandle b : r->later) ASSERT_TRUE(r->allocator.free(b).ok());
    r->allocator.empty_cache();
  }
  expect_same_state(replayed, memoised);
  EXPECT_EQ(used - replayed.device.used(), mib(26) + mib(26));
}

TEST(WeightLoadMemo, ADifferentStartingStateIsReplayed) {
  const WeightList w = model_weights();
  Rank first;
  ASSERT_TRUE(first.loads.load(first.allocator, w, first.later).ok());

  Rank other;
  ASSERT_TRUE(other.allocator.allocate(mib(40), Category::kOther).ok());
  Rank reference;
  ASSERT_TRUE(reference.allocator.allocate(mib(40), Category::kOther).ok());
  ASSERT_TRUE(load_weight_tensors(reference.allocator, tensors_of(w), reference.later).ok());
  ASSERT_TRUE(other.loads.load(other.allocator, w, other.later).ok());
  EXPECT_EQ(other.loads.restored(), 0);
  expect_same_state(reference, other);

  // An equal list that is another object is another key: replayed, same result.
  const WeightList copy = std::make_shared<const std::vector<WeightTensor>>(*w);
  Rank again;
  ASSERT_TRUE(again.loads.load(again.allocator, copy, again.later).ok());
  EXPECT_EQ(again.loads.restored(), 0);
  expect_same_state(first, again);
}

TEST(WeightLoadMemo, AFailedLoadIsNeverMemoised) {
  const WeightList w = model_weights();
  for (int run = 0; run < 2; ++run) {
    // 1,000 MiB less 300 held by others, the 528 MiB context and the 20 + 2 MiB segments
    // before: 150 MiB. Layers 0-3 take 4 x 26 MiB, a second 20 MiB segment (layer 3's
    // 3 MiB) and a second small one (its 600 KiB): 24 MiB left for layer 4's 25 MiB.
    Rank small(mib(1000));
    Status s = small.loads.load(small.allocator, w, small.later);
    EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
    EXPECT_EQ(small.loads.restored(), 0);
    ASSERT_TRUE(small.allocator.last_oom().has_value());
    EXPECT_EQ(small.allocator.last_oom()->requested, mib(25));
    EXPECT_EQ(small.allocator.last_oom()->segment_size, mib(26));
    EXPECT_EQ(small.allocator.last_oom()->device_free, mib(24));
  }
}

TEST(WeightLoadMemo, APrivatePoolMakesEveryLoadAReplay) {
  const WeightList w = model_weights();
  for (int run = 0; run < 2; ++run) {
    Rank r;
    const PoolId graphs = r.allocator.create_pool();
    ASSERT_TRUE(r.allocator.begin_allocate_to_pool(graphs).ok());
    ASSERT_TRUE(r.allocator.allocate(mib(3), Category::kGraphs).ok());
    ASSERT_TRUE(r.allocator.end_allocate_to_pool(graphs).ok());
    EXPECT_FALSE(r.allocator.snapshot().has_value());
    ASSERT_TRUE(r.loads.load(r.allocator, w, r.later).ok());
    EXPECT_EQ(r.loads.restored(), 0);
  }
}

}  // namespace
}  // namespace gpumem
