// Out of memory in the caching allocator: release the cache and retry, then report like
// PyTorch; with max_split_size, oversize blocks are released first.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "tests/alloc/allocator_checks.h"

namespace gpumem {
namespace {

using test_support::address_of;
using test_support::at;
using test_support::failed_malloc_of;
using test_support::FakeDevice;
using test_support::free_of;
using test_support::kAdvice;
using test_support::malloc_of;
using test_support::must_allocate;
using test_support::must_free;
using Event = FakeDevice::Event;

TEST(CachingAllocator, OutOfMemoryReleasesTheCacheRetriesThenReportsLikePyTorch) {
  FakeDevice device(mib(200));
  AllocatorConfig config;
  config.device_index = 3;
  CachingAllocator a(device, config);
  must_allocate(a, mib(5), Category::kWeights);  // 20 MiB segment, 15 MiB of it cached, split
  const BlockHandle t = must_allocate(a, mib(100), Category::kActivations);
  must_free(a, t);  // a cached, unsplit 100 MiB segment; 80 MiB free on the device

  // 150 MiB does not fit in 80 MiB: the cached 100 MiB segment is released, the retry fits.
  const BlockHandle kv = must_allocate(a, mib(150), Category::kKvCache);
  EXPECT_FALSE(kv.null());
  EXPECT_EQ(a.stats().alloc_retries, 1);
  EXPECT_EQ(device.used().value(), 178'257'920);  // 170 MiB
  EXPECT_EQ(a.memory_reserved().value(), 178'257'920);

  // 39 MiB + 1 B needs a 40 MiB segment; 30 MiB are free and nothing unsplit is cached.
  Result<BlockHandle> r = a.allocate(mib(39) + bytes(1), Category::kActivations);
  ASSERT_EQ(r.status().code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(r.status().message(),
            "CUDA out of memory. Tried to allocate 40.00 MiB. GPU 3 has a total capacity of "
            "200.00 MiB of which 30.00 MiB is free. Of the allocated memory 155.00 MiB is "
            "allocated by PyTorch, and 15.00 MiB is reserved by PyTorch but unallocated." +
                std::string(kAdvice));
  ASSERT_TRUE(a.last_oom().has_value());
  EXPECT_EQ(a.last_oom()->requested.value(), 40'894'465);
  EXPECT_EQ(a.last_oom()->segment_size.value(), 41'943'040);
  EXPECT_EQ(a.last_oom()->device_free.value(), 31'457'280);
  EXPECT_EQ(a.stats().alloc_retries, 2);
  EXPECT_EQ(a.stats().ooms, 1);

  const std::vector<Event> expected = {
      malloc_of(mib(20), Category::kWeights, bytes(0)),
      malloc_of(mib(100), Category::kActivations, mib(20)),
      failed_malloc_of(mib(150), Category::kKvCache),
      free_of(mib(100), mib(20)),
      malloc_of(mib(150), Category::kKvCache, mib(120)),
      failed_malloc_of(mib(40), Category::kActivations),
      failed_malloc_of(mib(40), Category::kActivations),
  };
  EXPECT_EQ(device.events(), expected);
}

TEST(CachingAllocator, MaxSplitSizeKeepsOversizeBlocksForLargeRequests) {
  FakeDevice device(gib(1));
  AllocatorConfig config;
  config.max_split_size = mib(100);
  CachingAllocator a(device, config);
  must_free(a, must_allocate(a, mib(150)));  // a cached oversize block at 0

  must_allocate(a, mib(30));   // below max_split_size: never from an oversize block
  must_allocate(a, mib(120));  // 150 >= 120 + 20: too much waste
  EXPECT_EQ(device.events().size(), 3u);
  const BlockHandle h = must_allocate(a, mib(140));  // 150 < 140 + 20: taken whole, unsplit
  EXPECT_EQ(address_of(a, h), at(bytes(0)));
  EXPECT_EQ(device.events().size(), 3u);
  EXPECT_EQ(a.memory_allocated().value(), 314'572'800);  // 30 + 120 + 150 MiB
}

TEST(CachingAllocator, MaxSplitSizeOutOfMemoryReleasesOversizeBlocksFirst) {
  FakeDevice device(mib(230));
  AllocatorConfig config;
  config.max_split_size = mib(100);
  CachingAllocator a(device, config);
  must_free(a, must_allocate(a, mib(150)));
  must_free(a, must_allocate(a, mib(30)));
  // The 150 MiB block may not serve 120 MiB, 50 MiB are free: the oversize block goes, the
  // retry fits, and the cached 30 MiB segment stays.
  must_allocate(a, mib(120));
  const std::vector<Event> expected = {
      malloc_of(mib(150), Category::kOther, bytes(0)),
      malloc_of(mib(30), Category::kOther, mib(150)),
      failed_malloc_of(mib(120), Category::kOther),
      free_of(mib(150), bytes(0)),
      malloc_of(mib(120), Category::kOther, mib(180)),
  };
  EXPECT_EQ(device.events(), expected);
  EXPECT_EQ(a.memory_reserved().value(), 157'286'400);  // 30 + 120 MiB
  EXPECT_EQ(a.stats().alloc_retries, 0);
}

TEST(CachingAllocator, MaxSplitSizeOutOfMemoryReleasesTheLargestOversizeBlocks) {
  FakeDevice device(mib(330));
  AllocatorConfig config;
  config.max_split_size = mib(100);
  CachingAllocator a(device, config);
  const BlockHandle b110 = must_allocate(a, mib(110));
  const BlockHandle b104 = must_allocate(a, mib(104));
  const BlockHandle b30 = must_allocate(a, mib(30));
  must_free(a, b110);
  must_free(a, b104);
  must_free(a, b30);
  // No cached block reaches 200 MiB: the largest oversize ones go until 200 MiB are freed.
  must_allocate(a, mib(200));
  const std::vector<Event> expected = {
      malloc_of(mib(110), Category::kOther, bytes(0)),
      malloc_of(mib(104), Category::kOther, mib(110)),
      malloc_of(mib(30), Category::kOther, mib(214)),
      failed_malloc_of(mib(200), Category::kOther),
      free_of(mib(110), bytes(0)),
      free_of(mib(104), mib(110)),
      malloc_of(mib(200), Category::kOther, mib(244)),
  };
  EXPECT_EQ(device.events(), expected);
  EXPECT_EQ(a.memory_reserved().value(), 241'172'480);  // 30 + 200 MiB
}

}  // namespace
}  // namespace gpumem
