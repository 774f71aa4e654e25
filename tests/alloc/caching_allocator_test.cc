#include "alloc/caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tests/alloc/allocator_checks.h"

namespace gpumem {
namespace {

using test_support::address_of;
using test_support::at;
using test_support::FakeDevice;
using test_support::free_of;
using test_support::malloc_of;
using test_support::must_allocate;
using test_support::must_free;
using Event = FakeDevice::Event;

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

}  // namespace
}  // namespace gpumem
