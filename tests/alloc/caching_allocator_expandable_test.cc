// Expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True): a pool grows one
// virtual range by pages (20 MiB in the large pool) as requests need them, splits whatever
// is left over, and empty_cache unmaps whole free pages; and the PyTorch defect the
// emulation follows: a private pool deleted while a tensor still lives in it.
#include <gtest/gtest.h>

#include "alloc/caching_allocator.h"
#include "tests/alloc/allocator_checks.h"

namespace gpumem {
namespace {

using test_support::FakeDevice;
using test_support::must_allocate;
using test_support::must_free;

AllocatorConfig expandable() {
  AllocatorConfig c;
  c.expandable_segments = true;
  return c;
}

TEST(ExpandableSegments, GrowByPagesAndUnmapWholeFreePages) {
  FakeDevice device(gib(8));
  CachingAllocator a(device, expandable());
  const BlockHandle x = must_allocate(a, mib(30));  // two 20 MiB pages, 10 MiB left free
  EXPECT_EQ(a.memory_reserved(), mib(40));
  EXPECT_EQ(device.events().size(), 2u);  // one device allocation per page
  EXPECT_EQ(a.stats().segments, 0);       // PyTorch's counter leaves these out
  EXPECT_EQ(a.snapshot_segments(), 1);
  const BlockHandle y = must_allocate(a, mib(5));  // the free 10 MiB, split
  EXPECT_EQ(a.memory_reserved(), mib(40));
  // 15 MiB: the free 5 MiB at 35 MiB plus one more page mapped after it, in one block.
  const BlockHandle z = must_allocate(a, mib(15));
  EXPECT_EQ(test_support::address_of(a, z) - test_support::address_of(a, x), 35ull << 20);
  EXPECT_EQ(a.memory_reserved(), mib(60));
  EXPECT_EQ(a.stats().device_mallocs, 2);  // PyTorch counts mappings, not pages
  EXPECT_EQ(a.memory_allocated(), mib(50));

  must_free(a, y);
  a.empty_cache();  // 5 MiB and 10 MiB free, neither holds a whole page
  EXPECT_EQ(a.memory_reserved(), mib(60));
  must_free(a, x);
  a.empty_cache();  // [0, 35) is free: its first page goes
  EXPECT_EQ(a.memory_reserved(), mib(40));
  EXPECT_EQ(a.stats().device_frees, 1);
  EXPECT_EQ(a.snapshot_segments(), 1);
  must_free(a, z);
  a.empty_cache();  // everything free: the range is released
  EXPECT_EQ(a.memory_reserved(), bytes(0));
  EXPECT_EQ(a.snapshot_segments(), 0);
  EXPECT_EQ(device.used(), bytes(0));
  EXPECT_TRUE(device.bad_frees().empty());
}

TEST(ExpandableSegments, TensorsCannotBeSharedBetweenProcesses) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, expandable());
  const BlockHandle x = must_allocate(a, mib(3));
  EXPECT_EQ(a.base_allocation(x).status().message(),
            "Tensors allocated with expandable_segments:True cannot be shared between "
            "processes. Consider using expandable_segments:False in data loading workers via "
            "torch.cuda.memory._set_allocator_settings('expandable_segments:False')");
}

// PyTorch counts a private pool's mappings up once per miss and down once per unmapped run,
// so one 60 MiB miss and one run of two pages unmapped leave a count of zero while B lives.
TEST(ExpandableSegments, APoolDeletedWhileATensorLivesKeepsItsMemory) {
  FakeDevice device(gib(1));
  CachingAllocator a(device, expandable());
  const PoolId pool = a.create_pool();
  ASSERT_TRUE(a.begin_allocate_to_pool(pool).ok());
  const BlockHandle big = must_allocate(a, mib(50));  // three pages, [0, 60 MiB)
  const BlockHandle kept = must_allocate(a, mib(2));  // [50, 52) of the same range
  ASSERT_TRUE(a.end_allocate_to_pool(pool).ok());
  ASSERT_TRUE(a.release_pool(pool).ok());
  must_free(a, big);
  a.empty_cache();  // [0, 40) unmapped: the count reaches zero, PyTorch deletes the pool
  EXPECT_FALSE(a.pool_info(pool).has_value());
  EXPECT_EQ(a.memory_reserved(), mib(20));
  EXPECT_EQ(a.snapshot_segments(), 0);  // the deleted pool's blocks are listed no more
  must_free(a, kept);
  a.empty_cache();  // its block went back to the deleted pool: no cache returns it
  EXPECT_EQ(a.memory_reserved(), mib(20));
  EXPECT_EQ(a.memory_allocated(), bytes(0));
}

}  // namespace
}  // namespace gpumem
