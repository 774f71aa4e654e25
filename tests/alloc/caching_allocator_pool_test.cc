// Private pools (CUDA-graph capture): captures sharing a pool reuse its blocks, OOM counts
// and frees them, no full cache release while routing to one, misuse in PyTorch's words.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "tests/alloc/allocator_checks.h"

namespace gpumem {
namespace {

using test_support::address_of;
using test_support::at;
using test_support::FakeDevice;
using test_support::free_of;
using test_support::kAdvice;
using test_support::malloc_of;
using test_support::must_allocate;
using test_support::must_free;

TEST(CachingAllocator, CapturesSharingAPoolReuseItsBlocks) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const PoolId pool = a.create_pool();
  EXPECT_FALSE(a.pool_info(pool).has_value());  // created by the first capture

  // Capture 1 (the larger batch): 40 and 30 MiB live at once, then freed into the pool.
  ASSERT_TRUE(a.begin_allocate_to_pool(pool).ok());
  const BlockHandle t1 = must_allocate(a, mib(40), Category::kGraphs);  // at 0
  const BlockHandle t2 = must_allocate(a, mib(30), Category::kGraphs);  // at 40 MiB
  must_free(a, t1);
  must_free(a, t2);
  ASSERT_TRUE(a.end_allocate_to_pool(pool).ok());
  EXPECT_EQ(a.pool_info(pool)->reserved.value(), 73'400'320);  // 70 MiB
  EXPECT_EQ(a.pool_info(pool)->use_count, 1);

  // The default pools never see the pool's free blocks: 36 MiB gets its own segment.
  const BlockHandle x = must_allocate(a, mib(36), Category::kActivations);  // at 70 MiB
  must_free(a, x);
  EXPECT_EQ(device.events().size(), 3u);

  // Capture 2 (a smaller batch) takes the pool's blocks, not the better-fitting 36 MiB one.
  ASSERT_TRUE(a.begin_allocate_to_pool(pool).ok());
  const BlockHandle c = must_allocate(a, mib(35), Category::kGraphs);
  const BlockHandle d = must_allocate(a, mib(25), Category::kGraphs);
  ASSERT_TRUE(a.end_allocate_to_pool(pool).ok());
  EXPECT_EQ(address_of(a, c), at(bytes(0)));
  EXPECT_EQ(address_of(a, d), at(mib(40)));
  EXPECT_EQ(device.events().size(), 3u);
  const PrivatePoolInfo info = *a.pool_info(pool);
  EXPECT_EQ(info.reserved.value(), 73'400'320);  // still capture 1's peak
  EXPECT_EQ(info.segments, 2);
  EXPECT_EQ(info.use_count, 2);

  // A pool block freed after its capture returns to the pool: 38 MiB by default allocation
  // cannot use c's 40 MiB and gets a segment.
  must_free(a, c);
  must_allocate(a, mib(38), Category::kActivations);  // at 106 MiB
  EXPECT_EQ(device.events().back(), malloc_of(mib(38), Category::kActivations, mib(106)));

  // The pool's segments survive empty_cache while any capture still uses the pool.
  a.empty_cache();
  EXPECT_EQ(device.events().back(), free_of(mib(36), mib(70)));
  ASSERT_TRUE(a.release_pool(pool).ok());
  a.empty_cache();
  EXPECT_EQ(a.pool_info(pool)->segments, 2);
  ASSERT_TRUE(a.release_pool(pool).ok());
  a.empty_cache();  // d still holds part of the 30 MiB segment
  EXPECT_EQ(device.events().back(), free_of(mib(40), bytes(0)));
  EXPECT_EQ(a.pool_info(pool)->segments, 1);
  must_free(a, d);
  a.empty_cache();
  EXPECT_EQ(device.events().back(), free_of(mib(30), mib(40)));
  EXPECT_FALSE(a.pool_info(pool).has_value());
  EXPECT_EQ(a.memory_reserved().value(), 39'845'888);  // the 38 MiB default segment
  EXPECT_TRUE(device.bad_frees().empty());
}

TEST(CachingAllocator, OutOfMemoryCountsPrivatePoolsAndFreesReleasedOnes) {
  FakeDevice device(mib(100));
  CachingAllocator a(device, AllocatorConfig{});
  const PoolId pool = a.create_pool();
  ASSERT_TRUE(a.begin_allocate_to_pool(pool).ok());
  must_free(a, must_allocate(a, mib(30), Category::kGraphs));
  ASSERT_TRUE(a.end_allocate_to_pool(pool).ok());
  must_allocate(a, mib(50), Category::kActivations);

  Result<BlockHandle> r = a.allocate(mib(30), Category::kActivations);
  ASSERT_EQ(r.status().code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(r.status().message(),
            "CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total capacity of "
            "100.00 MiB of which 20.00 MiB is free. Of the allocated memory 80.00 MiB is "
            "allocated by PyTorch, with 30.00 MiB allocated in private pools (e.g., CUDA "
            "Graphs), and 0 bytes is reserved by PyTorch but unallocated." +
                std::string(kAdvice));
  EXPECT_EQ(a.last_oom()->private_pool_cached.value(), 31'457'280);

  // Once the graph is gone the same request releases the pool's segment and succeeds.
  ASSERT_TRUE(a.release_pool(pool).ok());
  EXPECT_TRUE(a.allocate(mib(30), Category::kActivations).ok());
  EXPECT_FALSE(a.pool_info(pool).has_value());
  EXPECT_EQ(device.used().value(), 83'886'080);  // 50 + 30 MiB
}

TEST(CachingAllocator, NoFullCacheReleaseWhileRoutingToAPool) {
  FakeDevice device(mib(100));
  CachingAllocator a(device, AllocatorConfig{});
  must_free(a, must_allocate(a, mib(60)));  // cached in the default large pool
  const PoolId pool = a.create_pool();
  ASSERT_TRUE(a.begin_allocate_to_pool(pool).ok());
  EXPECT_EQ(a.allocate(mib(50), Category::kGraphs).status().code(), StatusCode::kOutOfMemory);
  a.empty_cache();  // skips the default pools during a capture too
  EXPECT_EQ(a.memory_reserved().value(), 62'914'560);
  ASSERT_TRUE(a.end_allocate_to_pool(pool).ok());
  EXPECT_EQ(a.stats().alloc_retries, 0);
  EXPECT_EQ(a.stats().ooms, 1);
  // After the capture the same shortage releases the cached 60 MiB and the retry fits.
  EXPECT_TRUE(a.allocate(mib(70), Category::kActivations).ok());
  EXPECT_EQ(a.stats().alloc_retries, 1);
  EXPECT_EQ(device.used().value(), 73'400'320);  // 70 MiB
}

TEST(CachingAllocator, PoolMisuseIsReportedWithPyTorchsWords) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const PoolId pool = a.create_pool();
  EXPECT_EQ(pool.value, 1u);
  EXPECT_EQ(a.end_allocate_to_pool(pool).message(),
            "endAllocatePool: not currently recording to mempool_id 1");
  EXPECT_EQ(a.release_pool(PoolId{7}).message(), "releasePool: no private pool mempool_id 7");
  EXPECT_EQ(a.begin_allocate_to_pool(PoolId{}).message(),
            "beginAllocateToPool: mempool_id 0 names the default pools");
  ASSERT_TRUE(a.begin_allocate_to_pool(pool).ok());
  EXPECT_EQ(a.begin_allocate_to_pool(pool).message(),
            "beginAllocateToPool: already recording to mempool_id 1");
  EXPECT_EQ(a.release_pool(pool).message(), "releasePool: still recording to mempool_id 1");
  const BlockHandle kept = must_allocate(a, mib(4), Category::kGraphs);
  ASSERT_TRUE(a.end_allocate_to_pool(pool).ok());
  ASSERT_TRUE(a.release_pool(pool).ok());
  EXPECT_EQ(a.release_pool(pool).message(), "releasePool: mempool_id 1 has no users left");
  EXPECT_EQ(a.begin_allocate_to_pool(pool).message(),
            "beginAllocateToPool: mempool_id 1 was released by all its users");
  must_free(a, kept);
}

}  // namespace
}  // namespace gpumem
