// An AllocatorObserver sees every request the allocator served, in order, with the block
// that serves it, and every free, cache release, pool routing and peak reset — and nothing
// for the calls that changed nothing (a zero-byte request, the free of its null block).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "tests/alloc/allocator_checks.h"

namespace gpumem {
namespace {

using test_support::at;
using test_support::FakeDevice;
using test_support::must_allocate;
using test_support::must_free;

class Log final : public AllocatorObserver {
 public:
  void allocated(Bytes size, Category c, BlockHandle b, DevicePtr p) override {
    lines.push_back("allocated " + std::to_string(size.value()) + " " +
                    std::string(category_name(c)) + " block " + std::to_string(b.index) + " at +" +
                    std::to_string(p.address - at(bytes(0))));
  }
  void allocation_failed(Bytes size, Category c, const Status& why) override {
    lines.push_back("failed " + std::to_string(size.value()) + " " + std::string(category_name(c)) +
                    " " + std::string(status_code_name(why.code())));
  }
  void freed(BlockHandle b) override { lines.push_back("freed block " + std::to_string(b.index)); }
  void cache_emptied() override { lines.push_back("emptied"); }
  void pool_created(PoolId p) override { lines.push_back("created " + std::to_string(p.value)); }
  void routing_began(PoolId p) override { lines.push_back("began " + std::to_string(p.value)); }
  void routing_ended(PoolId p) override { lines.push_back("ended " + std::to_string(p.value)); }
  void pool_released(PoolId p) override { lines.push_back("released " + std::to_string(p.value)); }
  void peaks_reset() override { lines.push_back("peaks reset"); }

  std::vector<std::string> lines;
};

TEST(AllocatorObserver, SeesEveryServedCallInOrder) {
  FakeDevice device(mib(64));
  CachingAllocator a(device, AllocatorConfig{});
  Log log;
  a.set_observer(&log);
  const BlockHandle small = must_allocate(a, bytes(1000), Category::kWeights);
  const BlockHandle none = must_allocate(a, bytes(0), Category::kWeights);
  const BlockHandle large = must_allocate(a, mib(12), Category::kKvCache);
  must_free(a, none);
  must_free(a, small);
  a.reset_peak_stats();
  const PoolId pool = a.create_pool();
  ASSERT_TRUE(a.begin_allocate_to_pool(pool).ok());
  const BlockHandle captured = must_allocate(a, mib(2), Category::kGraphs);
  ASSERT_TRUE(a.end_allocate_to_pool(pool).ok());
  ASSERT_TRUE(a.release_pool(pool).ok());
  EXPECT_EQ(a.allocate(mib(100), Category::kActivations).status().code(), StatusCode::kOutOfMemory);
  must_free(a, captured);
  must_free(a, large);
  a.empty_cache();
  a.set_observer(nullptr);
  must_allocate(a, bytes(512), Category::kOther);  // nobody told

  // Block records: 0 and its rest (1) in the 2 MiB small segment, 2 the 12 MiB segment at
  // +2 MiB; freeing 0 merges 1 into it, so the pool's 20 MiB segment at +14 MiB reuses 1.
  EXPECT_EQ(log.lines, (std::vector<std::string>{
                           "allocated 1000 weights block 0 at +0",
                           "allocated 12582912 kv block 2 at +2097152",
                           "freed block 0",
                           "peaks reset",
                           "created 1",
                           "began 1",
                           "allocated 2097152 graphs block 1 at +14680064",
                           "ended 1",
                           "released 1",
                           "failed 104857600 activations out_of_memory",
                           "freed block 1",
                           "freed block 2",
                           "emptied",
                       }));
}

}  // namespace
}  // namespace gpumem
