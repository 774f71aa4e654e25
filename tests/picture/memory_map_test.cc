// The memory map holds, per GPU, what each category holds at the end, the free memory, and
// for a GPU that ran out the request that did not fit; a completed GPU's segments add up to
// its total.
#include "picture/memory_map.h"

#include <gtest/gtest.h>

#include "picture/two_gpu_ledger.h"
#include "support/bundled_scenario.h"

namespace gpumem {
namespace {

Bytes held(const MemoryBar& b, Category c) { return b.held[static_cast<size_t>(c)]; }

TEST(MemoryMap, ABarHoldsEachCategoryAtTheEndAndTheFreeRest) {
  const MemoryMap map = memory_map(two_gpu_ledger());
  EXPECT_EQ(map.title, "two-gpus — sglang 0.5.9 on 2× test-gpu");
  EXPECT_EQ(map.verdict,
            "does not fit: GPU 1 runs out of memory at kv: asks 6.84 GiB with 6.25 GiB free");
  ASSERT_EQ(map.bars.size(), 2u);
  const MemoryBar& ok = map.bars[0];
  EXPECT_EQ(ok.label, "GPU 0");
  EXPECT_EQ(ok.other_processes, mib(256));
  EXPECT_EQ(held(ok, Category::kContext), mib(512));
  EXPECT_EQ(held(ok, Category::kWeights), mib(1024));
  EXPECT_EQ(held(ok, Category::kKvCache), mib(4096));
  EXPECT_EQ(ok.free, mib(8192 - 256 - 512 - 1024 - 4096));
  EXPECT_EQ(ok.outcome, StepOutcome::kOk);
  EXPECT_EQ(ok.requested, bytes(0));
}

TEST(MemoryMap, AGpuThatRanOutShowsTheRequestInsteadOfFreeMemory) {
  const MemoryMap map = memory_map(two_gpu_ledger());
  const MemoryBar& oom = map.bars[1];
  EXPECT_EQ(oom.outcome, StepOutcome::kOutOfMemory);
  EXPECT_EQ(oom.last_step, "kv");
  EXPECT_EQ(oom.free, bytes(0));
  EXPECT_EQ(oom.requested, mib(7000));
  EXPECT_EQ(oom.free_at_failure, mib(6400));
  EXPECT_EQ(held(oom, Category::kKvCache), bytes(0));
}

MemoryMap bundled_map(const std::string& name) { return memory_map(simulate_bundled(name)); }

TEST(MemoryMap, AnEngineErrorIsToldByItsFirstSentence) {
  const MemoryMap map = bundled_map("seed-kimi-k2-pcie8-mfs055");
  EXPECT_EQ(map.verdict, "does not fit: GPU 0 stops at kv_cache: RuntimeError: Not enough memory");
  EXPECT_FALSE(map.calibrated);
  ASSERT_EQ(map.bars.size(), 8u);
  EXPECT_EQ(map.bars[7].outcome, StepOutcome::kError);
  // The error stops the start-up without a failed allocation: the free memory stays.
  // The free memory after weights; SGLang's A, 24,181,250,048 B, is this reading after its
  // float32 MIN over ranks.
  EXPECT_EQ(map.bars[7].free, bytes(24'181'250'068));
}

// SGLang sizes the KV cache from A, less F x (1 - 0.55) it keeps back: 45,435,812,659 B kept
// from 24,181,250,048 B leaves -19.79 GiB (rest, truncated to bytes), the cause of its error.
TEST(MemoryMap, AStartUpStoppedAtKvSizingShowsTheEnginesBudget) {
  const MemoryMap map = bundled_map("seed-kimi-k2-pcie8-mfs055");
  EXPECT_EQ(map.kept_back, "F x (1 - mem_fraction_static)");
  for (const MemoryBar& b : map.bars) {
    ASSERT_TRUE(b.kv_budget) << b.label;
    EXPECT_EQ(b.kv_budget->free_after_weights, bytes(24'181'250'048));
    EXPECT_EQ(b.kv_budget->kv_cache, bytes(-21'254'562'611));
    EXPECT_EQ(b.kv_budget->kept_back, bytes(45'435'812'659));
  }
}

TEST(MemoryMap, AStartUpThatFitsShowsNoBudget) {
  const MemoryMap map = bundled_map("h100x16-llama-3.1-405b-tp8-pp2");
  EXPECT_EQ(map.kept_back, "");
  for (const MemoryBar& b : map.bars) EXPECT_FALSE(b.kv_budget) << b.label;
}

TEST(MemoryMap, SegmentsOfEveryCompletedGpuAddUpToItsTotal) {
  const MemoryMap map = bundled_map("h100x16-llama-3.1-405b-tp8-pp2");
  ASSERT_EQ(map.bars.size(), 16u);
  for (const MemoryBar& b : map.bars) {
    Bytes sum = b.other_processes + b.free;
    for (Bytes h : b.held) sum += h;
    EXPECT_EQ(sum, b.total) << b.label;
    EXPECT_GT(held(b, Category::kKvCache).value(), 0) << b.label;
  }
}

}  // namespace
}  // namespace gpumem
