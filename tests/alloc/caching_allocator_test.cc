#include "alloc/caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tests/alloc/fake_device.h"

namespace gpumem {
namespace {

using test_support::FakeDevice;
using Op = FakeDevice::Op;
using Event = FakeDevice::Event;

// FakeDevice hands out addresses from 1 TiB upwards, each segment right after the last.
constexpr std::uint64_t kBase = 1ULL << 40;

// The sentence PyTorch ends every out-of-memory message with.
constexpr const char* kAdvice =
    " If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
    "documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/"
    "cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)";

std::uint64_t at(Bytes offset) { return kBase + static_cast<std::uint64_t>(offset.value()); }

BlockHandle must_allocate(CachingAllocator& a, Bytes size, Category c = Category::kOther) {
  Result<BlockHandle> r = a.allocate(size, c);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : BlockHandle{};
}

std::uint64_t address_of(const CachingAllocator& a, BlockHandle h) {
  Result<DevicePtr> r = a.address(h);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->address : 0;
}

void must_free(CachingAllocator& a, BlockHandle h) {
  const Status s = a.free(h);
  EXPECT_TRUE(s.ok()) << s.message();
}

Event malloc_of(Bytes size, Category c, Bytes offset) {
  return {Op::kMalloc, size, c, DevicePtr{at(offset)}};
}
Event failed_malloc_of(Bytes size, Category c) { return {Op::kFailedMalloc, size, c, DevicePtr{}}; }
Event free_of(Bytes size, Bytes offset) {
  return {Op::kFree, size, Category::kOther, DevicePtr{at(offset)}};
}

// One request in a fresh allocator: the block size it gets and the segment it creates.
// Expected numbers computed in python3 (see size_rules_test.cc).
struct FirstRequest {
  std::int64_t request;
  std::int64_t block;
  std::int64_t segment;
};

void PrintTo(const FirstRequest& p, std::ostream* os) { *os << p.request << " B"; }

class FirstRequestTest : public ::testing::TestWithParam<FirstRequest> {};

TEST_P(FirstRequestTest, CreatesTheSegmentPyTorchWould) {
  const FirstRequest& p = GetParam();
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  must_allocate(a, bytes(p.request), Category::kWeights);
  ASSERT_EQ(device.events().size(), 1u);
  EXPECT_EQ(device.events()[0], malloc_of(bytes(p.segment), Category::kWeights, bytes(0)));
  EXPECT_EQ(device.used().value(), p.segment);
  EXPECT_EQ(a.memory_reserved().value(), p.segment);
  EXPECT_EQ(a.memory_allocated().value(), p.block);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, FirstRequestTest,
    ::testing::Values(FirstRequest{512, 512, 2'097'152},                 // 512 B
                      FirstRequest{1, 512, 2'097'152},                   // rounded up to 512 B
                      FirstRequest{1'048'576, 1'048'576, 2'097'152},     // 1 MiB: small pool
                      FirstRequest{1'048'577, 1'049'088, 20'971'520},    // 1 MiB + 1 B
                      FirstRequest{10'475'274, 10'475'520, 20'971'520},  // 9.99 MiB
                      FirstRequest{10'485'760, 10'485'760, 10'485'760},  // 10 MiB
                      // 250.5 MiB -> a 252 MiB segment, 1.5 MiB of it split off and cached
                      FirstRequest{262'668'288, 262'668'288, 264'241'152}),
    [](const ::testing::TestParamInfo<FirstRequest>& param_info) {
      return std::to_string(param_info.param.request) + "B";
    });

TEST(CachingAllocator, ZeroBytesIsTheNullHandle) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  Result<BlockHandle> h = a.allocate(bytes(0), Category::kOther);
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->null());
  EXPECT_TRUE(a.free(*h).ok());
  EXPECT_TRUE(device.events().empty());
  EXPECT_EQ(a.allocate(bytes(-1), Category::kOther).status().code(), StatusCode::kInternal);
}

TEST(CachingAllocator, FreedBlockIsReusedWithoutANewSegment) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const BlockHandle first = must_allocate(a, mib(5));
  const std::uint64_t first_address = address_of(a, first);
  EXPECT_EQ(first_address, at(bytes(0)));
  must_free(a, first);
  EXPECT_EQ(a.memory_allocated().value(), 0);
  EXPECT_EQ(a.memory_reserved().value(), 20'971'520);

  const BlockHandle second = must_allocate(a, mib(3));
  EXPECT_EQ(address_of(a, second), first_address);
  EXPECT_EQ(device.events().size(), 1u);
  EXPECT_EQ(a.memory_allocated().value(), 3'145'728);
  EXPECT_EQ(a.memory_reserved().value(), 20'971'520);
}

// The free blocks of both default pools as (address, size), record indices left out.
std::vector<std::pair<std::uint64_t, std::int64_t>> free_blocks(const CachingAllocator& a) {
  std::vector<std::pair<std::uint64_t, std::int64_t>> out;
  const std::optional<CachingAllocator::State> s = a.snapshot();
  EXPECT_TRUE(s.has_value());
  if (!s) return out;
  for (const FreeBlockIndex* index : {&s->large_free, &s->small_free}) {
    for (const FreeBlockIndex::Entry& e : index->entries())
      out.emplace_back(e.address(), e.size().value());
  }
  return out;
}

// What SGLang's warm-up elision (sglang/graph_capture.cc) rests on: requests served wholly
// from cached blocks and all freed again leave the free blocks as they were (split pieces
// merge back), so the same requests a second time take the same addresses.
TEST(CachingAllocator, RequestsServedFromTheCacheAndFreedLeaveItAsItWas) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const BlockHandle kept = must_allocate(a, mib(9));   // 20 MiB segment: 11 MiB cached after
  must_free(a, must_allocate(a, mib(30)));             // a 30 MiB segment, cached whole
  const BlockHandle small = must_allocate(a, kib(3));  // a 2 MiB small segment, mostly cached
  const auto before = free_blocks(a);
  ASSERT_EQ(before.size(), 3u);
  const size_t device_events = device.events().size();

  std::vector<std::uint64_t> first_addresses;
  for (int run = 0; run < 2; ++run) {
    std::vector<BlockHandle> live;
    for (Bytes size : {mib(4), kib(700), mib(25), mib(6), kib(2), mib(1) + bytes(1)}) {
      live.push_back(must_allocate(a, size, Category::kActivations));
    }
    std::vector<std::uint64_t> addresses;
    for (BlockHandle h : live) addresses.push_back(address_of(a, h));
    for (BlockHandle h : live) must_free(a, h);
    EXPECT_EQ(device.events().size(), device_events);  // no segment made or returned
    EXPECT_EQ(free_blocks(a), before);
    if (run == 0) first_addresses = addresses;
    EXPECT_EQ(addresses, first_addresses);
  }
  EXPECT_EQ(a.memory_allocated(), mib(9) + kib(3));  // 3 KiB is a multiple of 512 B
  must_free(a, kept);
  must_free(a, small);
}

TEST(CachingAllocator, SmallPoolSplitsDownTo512Bytes) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const BlockHandle x = must_allocate(a, mib(1));  // 2 MiB segment, 1 MiB stays cached
  const BlockHandle y = must_allocate(a, mib(1));  // the cached 1 MiB, exactly
  EXPECT_EQ(address_of(a, x), at(bytes(0)));
  EXPECT_EQ(address_of(a, y), at(mib(1)));
  ASSERT_EQ(device.events().size(), 1u);

  const BlockHandle z = must_allocate(a, bytes(512));  // nothing cached: a new segment
  EXPECT_EQ(address_of(a, z), at(mib(2)));
  EXPECT_EQ(device.events().size(), 2u);
  EXPECT_EQ(a.memory_allocated().value(), 2'097'664);  // 2 MiB + 512 B
  EXPECT_EQ(a.memory_reserved().value(), 4'194'304);
}

TEST(CachingAllocator, LargePoolSplitsWhenMoreThan1MiBIsLeft) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  // 1 MiB + 1 B: a 20 MiB segment; 19,922,432 B stay cached and serve the next request.
  must_allocate(a, bytes(1'048'577));
  const BlockHandle q = must_allocate(a, bytes(1'048'577));
  EXPECT_EQ(address_of(a, q), at(bytes(1'049'088)));
  EXPECT_EQ(device.events().size(), 1u);
  EXPECT_EQ(a.memory_allocated().value(), 2'098'176);
}

TEST(CachingAllocator, LargePoolKeepsABlockWholeWhen1MiBOrLessIsLeft) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  must_free(a, must_allocate(a, mib(12)));
  // The cached 12 MiB segment serves 11 MiB whole: 1 MiB left is not more than 1 MiB.
  const BlockHandle eleven = must_allocate(a, mib(11));
  EXPECT_EQ(address_of(a, eleven), at(bytes(0)));
  EXPECT_EQ(a.memory_allocated().value(), 12'582'912);
  // Nothing is left cached, so a 2 MiB large-pool request gets a 20 MiB segment.
  must_allocate(a, mib(2));
  ASSERT_EQ(device.events().size(), 2u);
  EXPECT_EQ(device.events()[1], malloc_of(mib(20), Category::kOther, mib(12)));
}

TEST(CachingAllocator, BestFitThenLowestAddress) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const BlockHandle s1 = must_allocate(a, mib(12));  // at 0
  const BlockHandle s2 = must_allocate(a, mib(14));  // at 12 MiB
  const BlockHandle s3 = must_allocate(a, mib(12));  // at 26 MiB
  must_free(a, s3);
  must_free(a, s2);
  must_free(a, s1);
  EXPECT_EQ(address_of(a, must_allocate(a, mib(11))), at(bytes(0)));
  EXPECT_EQ(address_of(a, must_allocate(a, mib(11))), at(mib(26)));
  // Only the 14 MiB block is left; 3 MiB remain, more than 1 MiB, so it is split.
  EXPECT_EQ(address_of(a, must_allocate(a, mib(11))), at(mib(12)));
  EXPECT_EQ(device.events().size(), 3u);
  EXPECT_EQ(a.memory_allocated().value(), 12'582'912 * 2 + 11'534'336);
}

TEST(CachingAllocator, FreedBlocksMergeWithFreeNeighbours) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const BlockHandle b1 = must_allocate(a, mib(4));  // [0, 4) of a 20 MiB segment
  const BlockHandle b2 = must_allocate(a, mib(4));  // [4, 8)
  const BlockHandle b3 = must_allocate(a, mib(4));  // [8, 12); [12, 20) stays cached
  must_free(a, b2);                                 // neighbours in use: no merge
  must_free(a, b1);                                 // merges with b2 into [0, 8)
  // Two cached 8 MiB blocks, [0, 8) and [12, 20): the lower address wins.
  const BlockHandle d = must_allocate(a, mib(8));
  EXPECT_EQ(address_of(a, d), at(bytes(0)));
  must_free(a, d);
  must_free(a, b3);  // merges with both neighbours: the segment is whole again
  EXPECT_EQ(a.memory_allocated().value(), 0);

  a.empty_cache();
  EXPECT_EQ(device.events().back(), free_of(mib(20), bytes(0)));
  EXPECT_EQ(device.used().value(), 0);
  EXPECT_TRUE(device.bad_frees().empty());
}

TEST(CachingAllocator, EmptyCacheChangesTheDevicesFreeMemory) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const BlockHandle t = must_allocate(a, mib(100), Category::kActivations);
  EXPECT_EQ(device.mem_get_info().free.value(), 968'884'224);  // 924 MiB
  EXPECT_EQ(a.memory_allocated().value(), 104'857'600);
  EXPECT_EQ(a.memory_reserved().value(), 104'857'600);
  const BlockHandle w = must_allocate(a, mib(5), Category::kWeights);  // a 20 MiB segment
  EXPECT_EQ(device.mem_get_info().free.value(), 947'912'704);          // 904 MiB

  must_free(a, t);  // cached: the driver still sees it in use
  EXPECT_EQ(device.mem_get_info().free.value(), 947'912'704);
  EXPECT_EQ(a.memory_allocated().value(), 5'242'880);
  EXPECT_EQ(a.memory_reserved().value(), 125'829'120);

  // The 100 MiB segment goes back; the 20 MiB one, split and partly in use, stays.
  a.empty_cache();
  EXPECT_EQ(device.mem_get_info().free.value(), 1'052'770'304);  // 1004 MiB
  EXPECT_EQ(a.memory_reserved().value(), 20'971'520);
  EXPECT_EQ(a.memory_allocated().value(), 5'242'880);
  EXPECT_EQ(a.max_memory_reserved().value(), 125'829'120);

  must_free(a, w);
  EXPECT_EQ(device.mem_get_info().free.value(), 1'052'770'304);
  a.empty_cache();
  EXPECT_EQ(device.mem_get_info().free.value(), 1'073'741'824);
  EXPECT_EQ(a.memory_reserved().value(), 0);
  const std::vector<Event> expected = {
      malloc_of(mib(100), Category::kActivations, bytes(0)),
      malloc_of(mib(20), Category::kWeights, mib(100)),
      free_of(mib(100), bytes(0)),
      free_of(mib(20), mib(100)),
  };
  EXPECT_EQ(device.events(), expected);
  EXPECT_EQ(a.stats().device_mallocs, 2);
  EXPECT_EQ(a.stats().device_frees, 2);
  EXPECT_EQ(a.stats().segments, 0);
}

TEST(CachingAllocator, StatsByCategoryAndPeaks) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const auto k = [](Category c) { return static_cast<std::size_t>(c); };
  const BlockHandle w = must_allocate(a, mib(5), Category::kWeights);  // 20 MiB weights segment
  must_allocate(a, mib(3), Category::kKvCache);     // from the weights segment's cached rest
  must_allocate(a, bytes(100), Category::kGraphs);  // a 2 MiB small segment
  const AllocatorStats& s = a.stats();
  EXPECT_EQ(s.allocated_by_category[k(Category::kWeights)].current.value(), 5'242'880);
  EXPECT_EQ(s.allocated_by_category[k(Category::kKvCache)].current.value(), 3'145'728);
  EXPECT_EQ(s.allocated_by_category[k(Category::kGraphs)].current.value(), 512);
  EXPECT_EQ(s.reserved_by_category[k(Category::kWeights)].current.value(), 20'971'520);
  EXPECT_EQ(s.reserved_by_category[k(Category::kKvCache)].current.value(), 0);
  EXPECT_EQ(s.reserved_by_category[k(Category::kGraphs)].current.value(), 2'097'152);
  EXPECT_EQ(a.memory_allocated().value(), 8'389'120);
  EXPECT_EQ(a.memory_reserved().value(), 23'068'672);

  must_free(a, w);
  EXPECT_EQ(s.allocated_by_category[k(Category::kWeights)].current.value(), 0);
  EXPECT_EQ(s.allocated_by_category[k(Category::kWeights)].peak.value(), 5'242'880);
  EXPECT_EQ(a.max_memory_allocated().value(), 8'389'120);
  a.reset_peak_stats();
  EXPECT_EQ(s.allocated_by_category[k(Category::kWeights)].peak.value(), 0);
  EXPECT_EQ(a.max_memory_allocated().value(), 3'146'240);
  EXPECT_EQ(a.max_memory_reserved().value(), 23'068'672);
}

TEST(CachingAllocator, AddressesAndBaseAllocation) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  must_allocate(a, mib(5));
  const BlockHandle second = must_allocate(a, mib(3));
  EXPECT_EQ(address_of(a, second), at(mib(5)));
  Result<BaseAllocation> base = a.base_allocation(second);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(base->base.address, at(bytes(0)));
  EXPECT_EQ(base->size.value(), 20'971'520);
}

TEST(CachingAllocator, StaleHandlesAreErrors) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, AllocatorConfig{});
  const BlockHandle h = must_allocate(a, mib(5));
  must_free(a, h);
  const Status twice = a.free(h);
  EXPECT_EQ(twice.code(), StatusCode::kInternal);
  EXPECT_EQ(twice.message(), "CachingAllocator: block handle 0/0 is not an allocated block");
  EXPECT_EQ(a.address(h).status().code(), StatusCode::kInternal);
  // The same record serves the next request under a new generation.
  const BlockHandle again = must_allocate(a, mib(5));
  EXPECT_EQ(again.index, h.index);
  EXPECT_NE(again.generation, h.generation);
  EXPECT_EQ(a.free(h).code(), StatusCode::kInternal);
  EXPECT_TRUE(a.free(again).ok());
}

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
