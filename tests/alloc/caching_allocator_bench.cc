// Cost of the caching-allocator emulation on its hot path: 1,000 allocate/free pairs of
// mixed sizes (small-pool, 1-10 MiB and large requests) with up to 16 blocks alive at once,
// so blocks are split, reused and merged. After the first iteration everything is served
// from the cache; the "pair" counter is the time per allocate/free pair.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <vector>

#include "alloc/caching_allocator.h"
#include "tests/alloc/fake_device.h"

namespace gpumem {
namespace {

constexpr int kPairs = 1'000;
constexpr std::size_t kLive = 16;

std::vector<Bytes> mixed_sizes() {
  // A fixed linear congruential sequence (Knuth's MMIX constants): the same sizes every run.
  std::uint64_t state = 42;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>(state >> 33);
  };
  std::vector<Bytes> sizes;
  sizes.reserve(kPairs);
  for (int i = 0; i < kPairs; ++i) {
    switch (next() % 3) {
      case 0:  // small pool: up to 1 MiB
        sizes.push_back(bytes(1 + next() % (1 << 20)));
        break;
      case 1:  // 1-10 MiB: 20 MiB segments
        sizes.push_back(bytes((1 << 20) + next() % (9 << 20)));
        break;
      default:  // large: 10-266 MiB
        sizes.push_back(bytes((10 << 20) + next() % (256 << 20)));
        break;
    }
  }
  return sizes;
}

void BM_AllocateFreePairs(benchmark::State& state) {
  const std::vector<Bytes> sizes = mixed_sizes();
  test_support::FakeDevice device(gib(64));
  CachingAllocator allocator(device, AllocatorConfig{});
  std::array<BlockHandle, kLive> live{};
  std::size_t oldest = 0;
  for (auto _ : state) {
    for (const Bytes& size : sizes) {
      if (!allocator.free(live[oldest]).ok()) state.SkipWithError("free failed");
      Result<BlockHandle> h = allocator.allocate(size, Category::kActivations);
      if (!h.ok()) state.SkipWithError("allocate failed");
      live[oldest] = h.ok() ? *h : BlockHandle{};
      oldest = (oldest + 1) % kLive;
    }
  }
  state.counters["pair"] = benchmark::Counter(
      kPairs, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["segments"] = static_cast<double>(allocator.stats().segments);
}
BENCHMARK(BM_AllocateFreePairs);

}  // namespace
}  // namespace gpumem

BENCHMARK_MAIN();
