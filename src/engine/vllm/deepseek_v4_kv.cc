#include "engine/vllm/deepseek_v4_kv.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace gpumem::vllm {
namespace {

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// kv_cache_interface.py MLAAttentionSpec / SlidingWindowMLASpec alignment: FlashMLA reads
// pages in 576-byte steps.
constexpr std::int64_t kPageAlignment = 576;
// vllm deepseek_v4_attention.py: the compressed caches' blocks cover 256 tokens of the
// sequence (DEEPSEEK_SPARSE_SWA's block size), so that a ratio-4 page of 64 latents equals a
// 64-token window page (sparse_swa.py DeepseekV4SWACache: block_size 64).
constexpr std::int64_t kCompressedBlock = 256;
constexpr std::int64_t kWindowBlock = 64;
// deepseek_compressor.py CompressorStateCache: float32 states of 4 (ratio 4) and 8 (ratio
// 128) tokens a block, whose pages match the window's ("they must use the same page size").
constexpr std::int64_t kRatio4StateBlock = 4;
constexpr std::int64_t kRatio128StateBlock = 8;

std::int64_t aligned(std::int64_t bytes) { return cdiv(bytes, kPageAlignment) * kPageAlignment; }

// One cache of one layer: its spec (block size, window) and its page before grouping.
struct Cache {
  KvLayerSpec spec;
  std::int64_t page = 0;
  int layer = 0;  // index into the stage's layers
};

// A cache's spec as the request arithmetic reads it (block size, window), its "head" the bytes
// of one stored row.
KvLayerSpec spec(KvLayerKind kind, std::int64_t block, std::int64_t window,
                 std::int64_t token_bytes) {
  KvLayerSpec s;
  s.kind = kind;
  s.block_size = block;
  s.num_kv_heads = 1;
  s.head_size = token_bytes;
  s.dtype_bytes = 1;
  s.sliding_window = window;
  return s;
}

// _approximate_gcd: the d in [lower_bound, max] that pads the counts least to multiples of d,
// the larger d on a tie.
std::int64_t approximate_gcd(const std::vector<std::int64_t>& counts, std::int64_t lower_bound) {
  const std::int64_t top = *std::max_element(counts.begin(), counts.end());
  std::int64_t best = lower_bound;
  std::int64_t best_pad = -1;
  for (std::int64_t d = lower_bound; d <= top; ++d) {
    std::int64_t pad = 0;
    for (const std::int64_t x : counts) pad += (d - x % d) % d;
    if (best_pad < 0 || pad <= best_pad) {
      best = d;
      best_pad = pad;
    }
  }
  return best;
}

}  // namespace

std::int64_t deepseek_v4_token_bytes(const Architecture& a) {
  const std::int64_t nope = a.mla.qk_nope_head_dim;
  return nope + 2 * a.mla.qk_rope_head_dim + nope / 64 + 1;
}

Result<KvCacheLayout> deepseek_v4_kv_layout(const Architecture& a, LayerRange layers) {
  const std::int64_t latent = deepseek_v4_token_bytes(a);
  const std::int64_t index_key = a.mla.index_key_bytes();
  const std::int64_t width = a.head_dim;
  // group_and_unify_kv_cache_specs: every MLAAttentionSpec in one group; the sliding-window
  // specs by (block size, window): the windows, the ratio-4 states, the ratio-128 states.
  std::vector<Cache> full;
  std::vector<Cache> window;
  std::vector<Cache> ratio4_states;
  std::vector<Cache> ratio128_states;
  for (std::int64_t l = layers.start; l < layers.end; ++l) {
    const int i = static_cast<int>(l - layers.start);
    const std::int64_t ratio = a.csa.ratio(l);
    // sparse_swa.py DeepseekV4SWACache.get_kv_cache_spec: every layer's window.
    window.push_back({spec(KvLayerKind::kSlidingWindow, kWindowBlock, a.sliding_window, latent),
                      aligned(kWindowBlock * latent), i});
    if (ratio <= 1) continue;
    // deepseek_v4_attention.py DeepseekV4MLAAttention.get_kv_cache_spec: a block of 256
    // tokens stores 256 / ratio latents.
    full.push_back({spec(KvLayerKind::kMla, kCompressedBlock, 0, latent),
                    aligned(kCompressedBlock / ratio * latent), i});
    // deepseek_compressor.py DeepseekCompressor: float32 kv and score states of width x 2
    // (ratio 4 overlaps two windows, twice as wide), over a window of overlap x ratio tokens.
    const std::int64_t overlap = ratio == 4 ? 2 : 1;
    const std::int64_t state_window = overlap * ratio;
    if (ratio == 4) {
      // DeepseekV4IndexerCache.get_kv_cache_spec: 64 fp8 index keys of 132 bytes a block.
      full.push_back({spec(KvLayerKind::kMla, kCompressedBlock, 0, index_key),
                      aligned(kCompressedBlock / ratio * index_key), i});
      for (const std::int64_t w : {width, a.mla.index_head_dim}) {
        const std::int64_t token = 2 * overlap * w * 4;
        ratio4_states.push_back(
            {spec(KvLayerKind::kSlidingWindow, kRatio4StateBlock, state_window, token),
             aligned(kRatio4StateBlock * token), i});
      }
    } else {
      const std::int64_t token = 2 * overlap * width * 4;
      ratio128_states.push_back(
          {spec(KvLayerKind::kSlidingWindow, kRatio128StateBlock, state_window, token),
           aligned(kRatio128StateBlock * token), i});
    }
  }
  if (full.empty()) {
    return Status{StatusCode::kInvalidInput,
                  "a pipeline stage of DeepSeek-V4 without a compressed layer is not modelled "
                  "(vLLM keys its KV pages on the compressed caches')"};
  }
  // _get_kv_cache_groups_uniform_groups: each window or state page is raised to the smallest
  // full-MLA page that holds it.
  std::vector<std::int64_t> full_pages;
  for (const Cache& c : full) full_pages.push_back(c.page);
  std::sort(full_pages.begin(), full_pages.end());
  full_pages.erase(std::unique(full_pages.begin(), full_pages.end()), full_pages.end());
  std::vector<std::vector<Cache>*> uniform = {&full, &window, &ratio4_states, &ratio128_states};
  for (std::vector<Cache>* u : uniform) {
    for (Cache& c : *u) {
      auto it = std::lower_bound(full_pages.begin(), full_pages.end(), c.page);
      if (it == full_pages.end()) {
        return Status{StatusCode::kInvalidInput,
                      "a DeepSeek-V4 cache page of " + std::to_string(c.page) +
                          " bytes exceeds every compressed page; vLLM asserts it does not"};
      }
      c.page = *it;
    }
  }
  // get_num_layer_tuples: a group's most layers at one page size; the tuple count is their
  // approximate gcd, at least the full-MLA group's.
  std::vector<std::map<std::int64_t, std::vector<const Cache*>>> by_page;
  std::vector<std::int64_t> counts;
  std::vector<size_t> kept;
  for (size_t k = 0; k < uniform.size(); ++k) {
    if (uniform[k]->empty()) continue;
    std::map<std::int64_t, std::vector<const Cache*>> pages;
    for (const Cache& c : *uniform[k]) pages[c.page].push_back(&c);
    std::int64_t most = 0;
    for (const auto& [page, members] : pages) {
      most = std::max(most, static_cast<std::int64_t>(members.size()));
    }
    by_page.push_back(std::move(pages));
    counts.push_back(most);
    kept.push_back(k);
  }
  const std::int64_t tuples = approximate_gcd(counts, counts.front());
  KvCacheLayout out;
  std::int64_t tuple_bytes = 0;
  for (const std::int64_t p : full_pages) tuple_bytes += p;
  out.group_size = tuples;
  out.page = bytes(tuple_bytes);
  out.block_bytes = bytes(tuple_bytes * tuples);
  out.min_block_size = kCompressedBlock;
  for (size_t u = 0; u < by_page.size(); ++u) {
    // A group of more tuples splits into cdiv(count, tuples) groups, taking every n-th layer of
    // each page size.
    const std::int64_t n = cdiv(counts[u], tuples);
    const Cache& first = uniform[kept[u]]->front();
    for (std::int64_t g = 0; g < n; ++g) {
      KvGroup group;
      group.spec = first.spec;
      for (const auto& [page, members] : by_page[u]) {
        for (size_t m = static_cast<size_t>(g); m < members.size(); m += static_cast<size_t>(n)) {
          group.layers.push_back(members[m]->layer);
          group.packed_page += bytes(page);
        }
      }
      out.min_block_size = std::min(out.min_block_size, first.spec.block_size);
      out.groups.push_back(std::move(group));
    }
  }
  // One KVCacheTensor per (tuple, full-MLA page size), every slot allocated.
  for (std::int64_t t = 0; t < tuples; ++t) {
    for (const std::int64_t p : full_pages) out.tensor_pages.push_back(bytes(p));
  }
  return out;
}

}  // namespace gpumem::vllm
