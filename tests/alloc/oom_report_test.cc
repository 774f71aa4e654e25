#include "alloc/oom_report.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

TEST(FormatTorchSize, UnitBoundariesAreInclusive) {
  EXPECT_EQ(format_torch_size(bytes(0)), "0 bytes");
  EXPECT_EQ(format_torch_size(bytes(1'024)), "1024 bytes");
  EXPECT_EQ(format_torch_size(bytes(1'025)), "1.00 KiB");
  EXPECT_EQ(format_torch_size(bytes(1'536)), "1.50 KiB");
  EXPECT_EQ(format_torch_size(mib(1)), "1024.00 KiB");
  EXPECT_EQ(format_torch_size(mib(1) + bytes(1)), "1.00 MiB");
  EXPECT_EQ(format_torch_size(mib(20)), "20.00 MiB");
  EXPECT_EQ(format_torch_size(gib(1)), "1024.00 MiB");
  EXPECT_EQ(format_torch_size(gib(1) + bytes(1)), "1.00 GiB");
}

TEST(FormatTorchSize, RoundsLikePrintf) {
  // python3: '%.2f' % (1179648 / 2**20) == '1.12' (an exact tie, rounded to even);
  // '%.2f' % (85017362432 / 2**30) == '79.18'
  EXPECT_EQ(format_torch_size(bytes(1'179'648)), "1.12 MiB");
  EXPECT_EQ(format_torch_size(bytes(85'017'362'432)), "79.18 GiB");
}

TEST(FormatOomMessage, WithAndWithoutPrivatePools) {
  OomReport r;
  r.device_index = 5;
  r.requested = mib(39) + bytes(1);
  r.segment_size = mib(40);
  r.device_total = bytes(85'017'362'432);
  r.device_free = mib(30);
  r.allocated = gib(70);
  r.reserved = gib(70) + mib(15);
  const std::string advice =
      " If reserved but unallocated memory is large try setting "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
      "documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/"
      "cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)";
  EXPECT_EQ(format_oom_message(r),
            "CUDA out of memory. Tried to allocate 40.00 MiB. GPU 5 has a total capacity of "
            "79.18 GiB of which 30.00 MiB is free. Of the allocated memory 70.00 GiB is "
            "allocated by PyTorch, and 15.00 MiB is reserved by PyTorch but unallocated." +
                advice);

  r.private_pool_cached = mib(12);
  EXPECT_EQ(format_oom_message(r),
            "CUDA out of memory. Tried to allocate 40.00 MiB. GPU 5 has a total capacity of "
            "79.18 GiB of which 30.00 MiB is free. Of the allocated memory 70.01 GiB is "
            "allocated by PyTorch, with 12.00 MiB allocated in private pools (e.g., CUDA "
            "Graphs), and 3.00 MiB is reserved by PyTorch but unallocated." +
                advice);
}

}  // namespace
}  // namespace gpumem
