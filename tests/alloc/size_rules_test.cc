#include "alloc/size_rules.h"

#include <gtest/gtest.h>

#include "alloc/allocator_config.h"

namespace gpumem {
namespace {

// Expected values: python3, r = max(512, -(-s // 512) * 512); segment = 2 MiB if r <= 1 MiB,
// 20 MiB if r < 10 MiB, else -(-r // 2 MiB) * 2 MiB.
TEST(SizeRules, RoundSizeIsAtLeast512AndAMultipleOf512) {
  const AllocatorConfig c;
  EXPECT_EQ(round_size(bytes(1), c).value(), 512);
  EXPECT_EQ(round_size(bytes(512), c).value(), 512);
  EXPECT_EQ(round_size(bytes(513), c).value(), 1'024);
  EXPECT_EQ(round_size(bytes(1'000), c).value(), 1'024);
  EXPECT_EQ(round_size(bytes(1'048'577), c).value(), 1'049'088);
  EXPECT_EQ(round_size(bytes(10'475'274), c).value(), 10'475'520);
}

TEST(SizeRules, PoolChoice) {
  const AllocatorConfig c;
  EXPECT_TRUE(is_small_request(bytes(512), c));
  EXPECT_TRUE(is_small_request(bytes(1'048'576), c));
  EXPECT_FALSE(is_small_request(bytes(1'049'088), c));
}

TEST(SizeRules, SegmentSizeOnAMiss) {
  const AllocatorConfig c;
  EXPECT_EQ(segment_size_for(bytes(512), c).value(), 2'097'152);
  EXPECT_EQ(segment_size_for(bytes(1'048'576), c).value(), 2'097'152);
  EXPECT_EQ(segment_size_for(bytes(1'049'088), c).value(), 20'971'520);
  EXPECT_EQ(segment_size_for(bytes(10'475'520), c).value(), 20'971'520);
  EXPECT_EQ(segment_size_for(bytes(10'485'760), c).value(), 10'485'760);
  EXPECT_EQ(segment_size_for(bytes(262'668'288), c).value(), 264'241'152);  // 250.5 -> 252 MiB
}

TEST(SizeRules, SplitInTheSmallPoolLeavesAtLeast512Bytes) {
  const AllocatorConfig c;
  EXPECT_TRUE(should_split(mib(2), mib(2) - bytes(512), true, c));
  EXPECT_FALSE(should_split(mib(2), mib(2), true, c));
  EXPECT_FALSE(should_split(bytes(1'024), bytes(1'024), true, c));
}

TEST(SizeRules, SplitInTheLargePoolLeavesMoreThan1MiB) {
  const AllocatorConfig c;
  EXPECT_TRUE(should_split(mib(20), bytes(1'049'088), false, c));
  EXPECT_TRUE(should_split(mib(12), mib(11) - bytes(512), false, c));  // 1 MiB + 512 B left
  EXPECT_FALSE(should_split(mib(12), mib(11), false, c));              // exactly 1 MiB left
}

TEST(SizeRules, MaxSplitSizeStopsSplittingLargeRequests) {
  AllocatorConfig c;
  c.max_split_size = mib(100);
  EXPECT_TRUE(should_split(mib(150), mib(90), false, c));
  EXPECT_FALSE(should_split(mib(150), mib(100), false, c));
  EXPECT_FALSE(should_split(mib(300), mib(120), false, c));
}

TEST(SizeRules, OversizeBlocksServeOnlyLargeRequestsWithin20MiB) {
  const AllocatorConfig unlimited;
  EXPECT_TRUE(may_serve(gib(10), mib(30), unlimited));

  AllocatorConfig c;
  c.max_split_size = mib(100);
  EXPECT_TRUE(may_serve(mib(99), mib(30), c));
  EXPECT_FALSE(may_serve(mib(100), mib(30), c));
  EXPECT_FALSE(may_serve(mib(150), mib(99), c));
  EXPECT_TRUE(may_serve(mib(150), mib(140), c));   // 10 MiB more than asked
  EXPECT_FALSE(may_serve(mib(160), mib(140), c));  // 20 MiB more: refused
  c.max_non_split_rounding = mib(30);
  EXPECT_TRUE(may_serve(mib(160), mib(140), c));
}

TEST(AllocatorConfig, ValidationUsesPyTorchsMessages) {
  AllocatorConfig c;
  EXPECT_TRUE(validate_config(c).ok());
  c.max_split_size = mib(20);
  EXPECT_TRUE(validate_config(c).ok());
  c.max_split_size = mib(19);
  EXPECT_EQ(validate_config(c).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(validate_config(c).message(),
            "CachingAllocator option max_split_size_mb too small, must be >= 20");
  c.max_split_size.reset();
  c.max_non_split_rounding = mib(4);
  EXPECT_EQ(validate_config(c).message(),
            "CachingAllocator option max_non_split_rounding_mb too small, must be >= 20");
  c.max_non_split_rounding = mib(20);
  c.min_block_size = bytes(0);
  EXPECT_EQ(validate_config(c).message(),
            "caching allocator size constants must be positive, got 0 B");
}

}  // namespace
}  // namespace gpumem
