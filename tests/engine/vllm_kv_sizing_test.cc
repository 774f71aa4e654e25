// vLLM's KV-cache sizing as pure functions: page sizes, groups, block counts, the logged
// token count and concurrency, the budget and its error texts, with real log lines of
// vLLM v0.10.2. Every expected number was computed independently with CPython from vLLM's
// expressions (research/vllm-trtllm-memory.md §1.3, §2): page = block x heads x (head +
// head_v) x dtype, num_blocks = available // page // group_size, tokens
// int(num_blocks / cdiv(len, block) x len) or num_blocks // groups x block.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/vllm/kv_sizing.h"
#include "engine/vllm/log_lines.h"

namespace gpumem::vllm {
namespace {

constexpr std::int64_t kGiB = 1LL << 30;

const VersionRules kV0_10_2 = rules_for({0, 10, 2, 0});
const VersionRules kV0_21 = rules_for({0, 21, 0, 0});

KvLayerSpec full(std::int64_t heads, std::int64_t head, std::int64_t dtype = 2,
                 std::int64_t block = 16) {
  KvLayerSpec s;
  s.block_size = block;
  s.num_kv_heads = heads;
  s.head_size = head;
  s.head_size_v = head;
  s.dtype_bytes = dtype;
  return s;
}

KvLayerSpec sliding(std::int64_t heads, std::int64_t head, std::int64_t window) {
  KvLayerSpec s = full(heads, head);
  s.kind = KvLayerKind::kSlidingWindow;
  s.sliding_window = window;
  return s;
}

KvLayerSpec mla(std::int64_t dtype, std::int64_t block) {
  KvLayerSpec s;
  s.kind = KvLayerKind::kMla;
  s.block_size = block;
  s.num_kv_heads = 1;
  s.head_size = 512 + 64;
  s.dtype_bytes = dtype;
  return s;
}

KvCacheLayout uniform(const KvLayerSpec& s, int layers) {
  Result<KvCacheLayout> l = group_kv_layers(std::vector<KvLayerSpec>(layers, s), true);
  EXPECT_TRUE(l.ok());
  return *l;
}

TEST(VllmKvSizing, PageSizes) {
  EXPECT_EQ(page_size(full(8, 128)).value(), 65536);     // Llama-3.1-8B, bf16, TP 1
  EXPECT_EQ(page_size(full(4, 128)).value(), 32768);     // the same at TP 2
  EXPECT_EQ(page_size(full(1, 128)).value(), 8192);      // 8 KV heads at TP 16: max(1, 0)
  EXPECT_EQ(page_size(full(8, 128, 1)).value(), 32768);  // fp8 cache
  EXPECT_EQ(page_size(mla(2, 64)).value(), 73728);       // DeepSeek-V3, FlashMLA block 64
  EXPECT_EQ(page_size(mla(1, 64)).value(), 36864);
  EXPECT_EQ(page_size(sliding(8, 64, 128)).value(), 32768);  // as full attention
}

TEST(VllmKvSizing, UniformModelIsOneGroupOfAllLayers) {
  const KvCacheLayout l = uniform(full(8, 128), 32);
  ASSERT_EQ(l.groups.size(), 1u);
  EXPECT_EQ(l.group_size, 32);
  EXPECT_EQ(l.page.value(), 65536);
  EXPECT_TRUE(l.paddings.empty());
  // Llama-3.1-8B at 60 GiB: 64,424,509,440 // 65,536 // 32 = 30,720 blocks.
  EXPECT_EQ(num_blocks(bytes(60 * kGiB), l), 30720);
}

// vLLM 0.10.2, Qwen3-14B (40 layers, 8 KV heads of 128) on one A100-40GB, max_model_len
// 32768 (shared/engine-logs/dev.yaml case 12): "Available KV cache memory: 6.51 GiB",
// "GPU KV cache size: 42,656 tokens", "Maximum concurrency for 32,768 tokens per request:
// 1.30x". 6.51 GiB (6,990,059,274 B) lies in [2666, 2667) x 2,621,440 B, so 2,666 blocks;
// both token formulas give 2,666 x 16 = 42,656 here (32,768 is a multiple of the block).
TEST(VllmKvSizing, Case12Qwen3_14bOnA100_40gb) {
  const KvCacheLayout l = uniform(full(8, 128), 40);
  const Bytes available = bytes(6'990'059'274);
  EXPECT_EQ(log_available_kv_cache_memory(available, kV0_10_2),
            "Available KV cache memory: 6.51 GiB");
  const std::int64_t blocks = num_blocks(available, l);
  EXPECT_EQ(blocks, 2666);
  EXPECT_EQ(logged_token_count(blocks, l, 32768, 2048, kV0_10_2), 42656);
  EXPECT_EQ(logged_token_count(blocks, l, 32768, 2048, kV0_21), 42656);
  EXPECT_EQ(log_kv_cache_size(42656), "GPU KV cache size: 42,656 tokens");
  EXPECT_EQ(log_max_concurrency(32768, max_concurrency(blocks, l, 32768, 2048)),
            "Maximum concurrency for 32,768 tokens per request: 1.30x");
}

// vLLM 0.10.2, llava-v1.6-mistral-7b (Mistral-7B: 32 layers, 8 KV heads of 128), max_model_len
// 4096 (dev.yaml case 28): "Current kv cache memory in use is 59212694937 bytes",
// "Available KV cache memory: 55.15 GiB", "GPU KV cache size: 451,744 tokens", "Maximum
// concurrency for 4,096 tokens per request: 110.29x". 59,212,694,937 // 65,536 // 32 =
// 28,234 blocks; 28,234 / 256 = 110.289.
TEST(VllmKvSizing, Case28MistralOn80gb) {
  const KvCacheLayout l = uniform(full(8, 128), 32);
  const Bytes available = bytes(59'212'694'937);
  EXPECT_EQ(log_available_kv_cache_memory(available, kV0_10_2),
            "Available KV cache memory: 55.15 GiB");
  const std::int64_t blocks = num_blocks(available, l);
  EXPECT_EQ(blocks, 28234);
  EXPECT_EQ(log_kv_cache_size(logged_token_count(blocks, l, 4096, 16384, kV0_10_2)),
            "GPU KV cache size: 451,744 tokens");
  EXPECT_EQ(log_max_concurrency(4096, max_concurrency(blocks, l, 4096, 16384)),
            "Maximum concurrency for 4,096 tokens per request: 110.29x");
}

// A public vLLM 0.10.2 log of Llama-3.1-8B-Instruct with --enforce-eager: "Available KV
// cache memory: 85.79 GiB", "GPU KV cache size: 702,800 tokens", "Maximum concurrency for
// 131,072 tokens per request: 5.36x", num_gpu_blocks 43925. 43,925 blocks need
// [92,117,401,600, 92,119,498,752) B, which prints as 85.79 GiB.
TEST(VllmKvSizing, Llama8bEagerLog) {
  const KvCacheLayout l = uniform(full(8, 128), 32);
  const Bytes available = bytes(92'118'401'600);
  EXPECT_EQ(log_available_kv_cache_memory(available, kV0_10_2),
            "Available KV cache memory: 85.79 GiB");
  const std::int64_t blocks = num_blocks(available, l);
  EXPECT_EQ(blocks, 43925);
  EXPECT_EQ(logged_token_count(blocks, l, 131072, 2048, kV0_10_2), 702800);
  EXPECT_EQ(log_max_concurrency(131072, max_concurrency(blocks, l, 131072, 2048)),
            "Maximum concurrency for 131,072 tokens per request: 5.36x");
}

TEST(VllmKvSizing, TokenFormulasDifferWhenTheLengthIsNotAMultipleOfTheBlock) {
  const KvCacheLayout l = uniform(full(8, 128), 32);
  // Before PR #41069: 100 // 1 x 16; after: int(100 / cdiv(1000, 16) x 1000) = int(1587.3).
  EXPECT_EQ(logged_token_count(100, l, 1000, 2048, kV0_10_2), 1600);
  EXPECT_EQ(logged_token_count(100, l, 1000, 2048, kV0_21), 1587);
}

// gpt-oss-20b: 12 sliding-window (128) and 12 full layers, 8 KV heads of 64 on one GPU. Same
// page size, 12 layers each: two groups of 12. At 60 GiB: 64,424,509,440 // 32,768 // 12 =
// 163,840 blocks; one request of 131,072 tokens with 8,192 batched tokens needs 8,192 full
// pages and cdiv(min(127 + 8192, 131072), 16) + 1 = 521 window pages: 8,713 blocks.
TEST(VllmKvSizing, HybridSlidingWindowGptOss) {
  std::vector<KvLayerSpec> layers;
  for (int i = 0; i < 24; ++i) layers.push_back(i % 2 == 0 ? sliding(8, 64, 128) : full(8, 64));
  Result<KvCacheLayout> l = group_kv_layers(layers, true);
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->groups.size(), 2u);
  EXPECT_EQ(l->group_size, 12);
  EXPECT_EQ(l->groups[0].spec.kind, KvLayerKind::kSlidingWindow);
  EXPECT_EQ(l->groups[0].layers.front(), 0);
  EXPECT_EQ(l->groups[1].layers.back(), 23);
  const std::int64_t blocks = num_blocks(bytes(60 * kGiB), *l);
  EXPECT_EQ(blocks, 163840);
  EXPECT_EQ(logged_token_count(blocks, *l, 131072, 8192, kV0_21), 2464689);
  EXPECT_EQ(logged_token_count(blocks, *l, 131072, 8192, kV0_10_2), 1310720);
  EXPECT_EQ(log_max_concurrency(131072, max_concurrency(blocks, *l, 131072, 8192)),
            "Maximum concurrency for 131,072 tokens per request: 18.80x");
}

// Gemma-3-27B: 52 sliding and 10 full layers. Group size min(52, 10) = 10 (52 is not below
// 1.5 x 10); the sliding layers split into cdiv(52, 10) = 6 groups of 9, 9, 9, 9, 8, 8
// (layers[i::6]), padded by 8 slots: "Add 8 padding layers, may waste at most 15.38% KV
// cache memory".
TEST(VllmKvSizing, HybridGroupsArePadded) {
  std::vector<KvLayerSpec> layers;
  for (int i = 0; i < 62; ++i) {
    layers.push_back((i + 1) % 6 != 0 ? sliding(16, 128, 1024) : full(16, 128));
  }
  Result<KvCacheLayout> l = group_kv_layers(layers, true);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->group_size, 10);
  ASSERT_EQ(l->groups.size(), 7u);
  std::vector<size_t> sizes;
  for (const KvGroup& g : l->groups) sizes.push_back(g.layers.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{9, 9, 9, 9, 8, 8, 10}));
  EXPECT_EQ(l->groups[1].layers.front(), 1);  // layers[1::6] of the sliding ones
  ASSERT_EQ(l->paddings.size(), 1u);
  EXPECT_EQ(log_padding_layers(l->paddings[0].added, l->paddings[0].layers),
            "Add 8 padding layers, may waste at most 15.38% KV cache memory");
}

TEST(VllmKvSizing, PageSizesThatDoNotDivideCannotBeUnified) {
  Result<KvCacheLayout> l = group_kv_layers({full(8, 128), sliding(3, 128, 128)}, true);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(),
            "the KV page sizes of the model's layers (24576 and 65536 B) are not multiples of "
            "each other; vLLM cannot unify them");
}

TEST(VllmKvSizing, BudgetIsCeilOfTotalTimesUtilizationFromTheRefactor) {
  const Bytes h200 = mib(143156);  // 150,109,945,856 B
  EXPECT_EQ(requested_memory(h200, 0.92, kV0_21), 138'101'150'188.0);
  EXPECT_EQ(requested_memory(h200, 0.92, kV0_10_2), 150'109'945'856.0 * 0.92);
  // int(requested - non_kv - estimate).
  EXPECT_EQ(
      available_kv_cache_memory(138'101'150'188.0, {bytes(16'094'076'928), bytes(1'352'908'800),
                                                    bytes(75'161'928), bytes(268'435'456)})
          .value(),
      120'310'567'076);
}

// The inverse of the budget: on an H100 (CUDA total 81,090 MiB = 85,030,666,240 B) with
// 73 GiB (78,383,153,152 B) of non-KV memory, 0.92 budgets 78,228,212,940.8 B (nothing left)
// and 0.93 79,078,519,603.2 B; one request of 1 GiB more needs 0.94 (79,928,826,265.6 B).
TEST(VllmKvSizing, SmallestUtilizationThatStarts) {
  const Bytes h100 = mib(81090);
  const ProfileResult held{bytes(73 * kGiB), bytes(0), bytes(0), bytes(0)};
  EXPECT_EQ(smallest_gpu_memory_utilization(h100, held, bytes(0), kV0_10_2), 0.93);
  EXPECT_EQ(smallest_gpu_memory_utilization(h100, held, bytes(kGiB), kV0_10_2), 0.94);
  const ProfileResult too_much{bytes(80 * kGiB), bytes(0), bytes(0), bytes(0)};
  EXPECT_EQ(smallest_gpu_memory_utilization(h100, too_much, bytes(0), kV0_10_2), std::nullopt);
  EXPECT_FALSE(kv_cache_memory_suffices(bytes(0), bytes(0)));
  EXPECT_TRUE(kv_cache_memory_suffices(bytes(1), bytes(0)));
  EXPECT_FALSE(kv_cache_memory_suffices(bytes(kGiB), bytes(2 * kGiB)));
}

// 4 GiB for 131,072 tokens is 524,288 B per 16-token block: 1.5 GiB holds 3,072 blocks.
TEST(VllmKvSizing, LongestModelLenWithinTheMemory) {
  EXPECT_EQ(max_model_len_within(bytes(3 * kGiB / 2), bytes(4 * kGiB), 131072, 16), 49152);
  EXPECT_EQ(max_model_len_within(bytes(8 * kGiB), bytes(4 * kGiB), 131072, 16), 131072);
  EXPECT_EQ(max_model_len_within(bytes(-kGiB), bytes(4 * kGiB), 131072, 16), 0);
}

// DeepSeek Sparse Attention: each layer's latent (576 bfloat16 values) and indexer keys (132
// bytes) are two MLA specs of unequal pages in one group of 64-token blocks (v0.11.0 on). GLM-5.1
// (78 layers) on H200s, TP 8, vLLM 0.19.1rc1 (a public bisect log): "Available KV cache memory:
// 32.11 GiB", "GPU KV cache size: 344,192 tokens", "Maximum concurrency for 202,752 tokens per
// request: 1.70x"; 34.86 GiB gave 373,696 tokens on 0.20.1.dev1.
TEST(VllmKvSizing, SparseAttentionLayersShareOneGroup) {
  KvLayerSpec latent = mla(1, 64);
  latent.head_size = 1152;
  KvLayerSpec indexer = latent;
  indexer.head_size = 132;
  std::vector<KvLayerSpec> layers;
  for (int l = 0; l < 78; ++l) {
    layers.push_back(latent);
    layers.push_back(indexer);
  }
  Result<KvCacheLayout> l = group_kv_layers(layers, true);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->groups.size(), 1u);
  EXPECT_EQ(l->group_size, 1);
  EXPECT_EQ(l->page.value(), 78 * 64 * (1152 + 132));  // 6,409,728
  ASSERT_EQ(l->tensor_pages.size(), 156u);
  EXPECT_EQ(l->tensor_pages[0].value(), 64 * 1152);
  EXPECT_EQ(l->tensor_pages[1].value(), 64 * 132);
  const VersionRules v0_19 = rules_for({0, 19, 1, 0});
  const std::int64_t blocks = num_blocks(bytes(std::llround(32.11 * kGiB)), *l);
  EXPECT_EQ(blocks, 5378);
  EXPECT_EQ(logged_token_count(blocks, *l, 202'752, 8192, v0_19), 344'192);
  EXPECT_EQ(log_max_concurrency(202'752, max_concurrency(blocks, *l, 202'752, 8192)),
            "Maximum concurrency for 202,752 tokens per request: 1.70x");
  EXPECT_EQ(logged_token_count(num_blocks(bytes(std::llround(34.86 * kGiB)), *l), *l, 202'752, 8192,
                               v0_19),
            373'696);
  // One request of 202,752 tokens: 3,168 blocks of the whole group.
  EXPECT_EQ(max_memory_per_request(*l, 202'752, 8192).value(), 3168LL * 6'409'728);
  // Before UniformTypeKVCacheSpecs the pages would be unified: not vLLM 0.11's grouping.
  Result<KvCacheLayout> old = group_kv_layers(layers, false);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().message(),
            "the KV page sizes of the model's layers (8448 and 73728 B) are not multiples of each "
            "other; vLLM cannot unify them");
}

TEST(VllmKvSizing, BudgetErrorTexts) {
  const Bytes h200 = mib(143156);
  EXPECT_EQ(budget_error(bytes(130 * kGiB), h200, 0.92, 0, kV0_21), "");
  EXPECT_EQ(budget_error(bytes(100 * kGiB), h200, 0.92, 3, kV0_21),
            "ValueError: Free memory on device cuda:3 (100.0/139.8 GiB) on startup is less than "
            "desired GPU memory utilization (0.92, 128.62 GiB). Decrease GPU memory utilization "
            "or reduce GPU memory used by other processes.");
  EXPECT_EQ(budget_error(bytes(100 * kGiB), h200, 0.9, 0, kV0_10_2),
            "ValueError: Free memory on device (100.0/139.8 GiB) on startup is less than desired "
            "GPU memory utilization (0.9, 125.82 GiB). Decrease GPU memory utilization or reduce "
            "GPU memory used by other processes.");
}

// One request of 131,072 tokens needs 32 x 8,192 x 65,536 B = 16 GiB; with 10 GiB the
// largest length that fits is 5,120 blocks x 16 = 81,920 tokens.
TEST(VllmKvSizing, NotEnoughForOneRequest) {
  const KvCacheLayout l = uniform(full(8, 128), 32);
  EXPECT_EQ(not_enough_kv_cache_error(bytes(16 * kGiB), l, 131072, 8192, kV0_21), "");
  EXPECT_EQ(not_enough_kv_cache_error(bytes(10 * kGiB), l, 131072, 8192, kV0_21),
            "ValueError: To serve at least one request with the model's max seq len (131072), "
            "(16.0 GiB KV cache is needed, which is larger than the available KV cache memory "
            "(10.0 GiB). Based on the available memory, the estimated maximum model length is "
            "81920. Try increasing `gpu_memory_utilization` (which also controls CPU memory on "
            "the CPU backend) or decreasing `max_model_len` when initializing the engine. See "
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.");
  EXPECT_EQ(not_enough_kv_cache_error(bytes(10 * kGiB), l, 131072, 8192, kV0_10_2),
            "ValueError: To serve at least one request with the models's max seq len (131072), "
            "(16.00 GiB KV cache is needed, which is larger than the available KV cache memory "
            "(10.00 GiB). Based on the available memory, the estimated maximum model length is "
            "81920. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
            "initializing the engine.");
}

TEST(VllmKvSizing, FormatGibIsPythonRoundToTwoDecimals) {
  EXPECT_EQ(format_gib(bytes(kGiB / 2)), "0.5");
  EXPECT_EQ(format_gib(bytes(16'094'076'928)), "14.99");
  EXPECT_EQ(format_gib(bytes(0)), "0.0");
  EXPECT_EQ(format_gib(mib(143156)), "139.8");
}

TEST(VllmLogLines, ModelLoadingByRelease) {
  const Bytes w = bytes(16'094'076'928);  // 14.988777... GiB
  EXPECT_EQ(log_model_loading(w, kV0_10_2), "Model loading took 14.9888 GiB");
  EXPECT_EQ(log_model_loading(w, rules_for({0, 13, 0, 0})),
            "Model loading took 14.9888 GiB memory");
  EXPECT_EQ(log_model_loading(w, kV0_21), "Model loading took 14.99 GiB memory");
}

TEST(VllmLogLines, CudagraphEstimateNote) {
  // 268,435,456 / 150,109,945,856 = 0.001788: 0.92 -> 0.9182 and 0.9218.
  EXPECT_EQ(log_cudagraph_estimate_note(0.92, bytes(268'435'456), mib(143156)),
            "CUDA graph memory profiling is enabled (default since v0.21.0). The current "
            "--gpu-memory-utilization=0.9200 is equivalent to --gpu-memory-utilization=0.9182 "
            "without CUDA graph memory profiling. To maintain the same effective KV cache size "
            "as before, increase --gpu-memory-utilization to 0.9218. To disable, set "
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.");
  EXPECT_EQ(log_graph_pool_memory(bytes(kGiB), bytes(3 * kGiB / 2)),
            "CUDA graph pool memory: 1.0 GiB (actual), 1.5 GiB (estimated), difference: 0.5 GiB "
            "(50.0%).");
}

}  // namespace
}  // namespace gpumem::vllm
