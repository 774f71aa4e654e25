#include "probe/nccl_log.h"

#include <gtest/gtest.h>

namespace gpumem::probe {
namespace {

TEST(NcclLog, ChannelLineOfCurrentReleases) {
  auto c = parse_channel_line(
      "gpu-host:1804:1804 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, "
      "32 p2p channels, 32 p2p channels per peer");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(*c,
            (ChannelCounts{
                {"coll", 24}, {"collnet", 24}, {"nvls", 0}, {"p2p", 32}, {"p2p_per_peer", 32}}));
}

TEST(NcclLog, ChannelLineWithOtherItems) {
  // An older layout without collnet and with an NVLS-tree item.
  auto c = parse_channel_line(
      "h:1:2 [1] NCCL INFO 2 coll channels, 2 nvls channels, 0 nvls tree channels, 4 p2p "
      "channels, 2 p2p channels per peer");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(*c, (ChannelCounts{
                    {"coll", 2}, {"nvls", 2}, {"nvls_tree", 0}, {"p2p", 4}, {"p2p_per_peer", 2}}));
}

TEST(NcclLog, OtherLinesAreNotChannelLines) {
  EXPECT_FALSE(parse_channel_line("h:1:2 [0] NCCL INFO Channel 00/24 : 0 1").has_value());
  EXPECT_FALSE(parse_channel_line("h:1:2 [0] NCCL INFO Connected all rings").has_value());
}

TEST(NcclLog, SummaryCountsDeviceAllocationsOnly) {
  const std::string log =
      "h:10:10 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
      "h:10:20 [0] NCCL INFO init.cc:400 Cuda Alloc Size 10485760 pointer 0x7f00 memType 0\n"
      "h:10:20 [0] NCCL INFO channel.cc:40 Cuda Alloc Size 2097152 pointer 0x7f01\n"
      "h:10:20 [0] NCCL INFO channel.cc:41 Cuda Calloc Size 4096 pointer 0x7f02\n"
      "h:10:20 [0] NCCL INFO enqueue.cc:9 Cuda CallocAsync Size 640 pointer 0x7f03\n"
      "h:10:20 [0] NCCL INFO init.cc:12 Host Calloc Size 8192 pointer 0x5500\n"
      "h:10:20 [0] NCCL INFO init.cc:13 CUMEM Host Alloc Size 4194304 pointer 0x5600 handle 1\n"
      "\n"
      "h:10:20 [0] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, 2 p2p "
      "channels, 2 p2p channels per peer\n"
      "h:10:20 [0] NCCL INFO 8 coll channels, 8 collnet channels, 0 nvls channels, 8 p2p "
      "channels, 1 p2p channels per peer\n";
  const NcclLogSummary s = summarize_nccl_log(log, 3);
  ASSERT_TRUE(s.version.has_value());
  EXPECT_EQ(*s.version, "2.28.9+cuda13.0");
  ASSERT_EQ(s.channel_lines.size(), 2u);
  EXPECT_EQ(s.channel_lines[1].front(), (std::pair<std::string, int>{"coll", 8}));
  ASSERT_EQ(s.allocations.size(), 3u);
  EXPECT_EQ(s.allocations[0].kind, "Cuda Alloc");
  EXPECT_EQ(s.allocations[0].count, 2);
  EXPECT_EQ(s.allocations[0].requested.value(), 12'582'912);  // 10 MiB + 2 MiB
  EXPECT_EQ(s.allocations[1].kind, "Cuda Calloc");
  EXPECT_EQ(s.allocations[1].requested.value(), 4'096);
  EXPECT_EQ(s.allocations[2].kind, "Cuda CallocAsync");
  EXPECT_EQ(s.allocations[2].requested.value(), 640);
  EXPECT_EQ(s.total_lines, 9);
  ASSERT_EQ(s.kept_lines.size(), 3u);
  EXPECT_EQ(s.kept_lines[0], "h:10:10 [0] NCCL INFO NCCL version 2.28.9+cuda13.0");
}

TEST(NcclLog, NegativeAndOverflowingSizesAreNotSummed) {
  // Found by fuzzing: two sizes of 2^63 - 1 overflowed the sum; a negative one shrank it.
  const std::string log =
      "h:1:2 [0] NCCL INFO x.cc:1 Cuda Alloc Size 9223372036854775807 pointer 0x1\n"
      "h:1:2 [0] NCCL INFO x.cc:1 Cuda Alloc Size 9223372036854775807 pointer 0x2\n"
      "h:1:2 [0] NCCL INFO x.cc:1 Cuda Alloc Size 99999999999999999999 pointer 0x3\n"
      "h:1:2 [0] NCCL INFO x.cc:1 Cuda Alloc Size -5 pointer 0x4\n";
  const NcclLogSummary s = summarize_nccl_log(log, 4);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].count, 1);
  EXPECT_EQ(s.allocations[0].requested.value(), 9'223'372'036'854'775'807);
}

}  // namespace
}  // namespace gpumem::probe
