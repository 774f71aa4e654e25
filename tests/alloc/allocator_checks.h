// What the caching-allocator tests share: checked allocate/free/address calls that fail the
// test on an error, FakeDevice addresses by offset, the device events a test expects, and the
// sentence PyTorch ends every out-of-memory message with.
#ifndef GPUMEM_TESTS_ALLOC_ALLOCATOR_CHECKS_H_
#define GPUMEM_TESTS_ALLOC_ALLOCATOR_CHECKS_H_

#include <gtest/gtest.h>

#include <cstdint>

#include "alloc/caching_allocator.h"
#include "tests/alloc/fake_device.h"

namespace gpumem::test_support {

// FakeDevice hands out addresses from 1 TiB upwards, each segment right after the last.
inline constexpr std::uint64_t kBase = 1ULL << 40;

// The sentence PyTorch ends every out-of-memory message with.
inline constexpr const char* kAdvice =
    " If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
    "documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/"
    "cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)";

inline std::uint64_t at(Bytes offset) { return kBase + static_cast<std::uint64_t>(offset.value()); }

inline BlockHandle must_allocate(CachingAllocator& a, Bytes size, Category c = Category::kOther) {
  Result<BlockHandle> r = a.allocate(size, c);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : BlockHandle{};
}

inline std::uint64_t address_of(const CachingAllocator& a, BlockHandle h) {
  Result<DevicePtr> r = a.address(h);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->address : 0;
}

inline void must_free(CachingAllocator& a, BlockHandle h) {
  const Status s = a.free(h);
  EXPECT_TRUE(s.ok()) << s.message();
}

inline FakeDevice::Event malloc_of(Bytes size, Category c, Bytes offset) {
  return {FakeDevice::Op::kMalloc, size, c, DevicePtr{at(offset)}};
}
inline FakeDevice::Event failed_malloc_of(Bytes size, Category c) {
  return {FakeDevice::Op::kFailedMalloc, size, c, DevicePtr{}};
}
inline FakeDevice::Event free_of(Bytes size, Bytes offset) {
  return {FakeDevice::Op::kFree, size, Category::kOther, DevicePtr{at(offset)}};
}

}  // namespace gpumem::test_support

#endif  // GPUMEM_TESTS_ALLOC_ALLOCATOR_CHECKS_H_
