#include "engine/vllm/kv_sizing.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/python_format.h"

namespace gpumem::vllm {
namespace {

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

constexpr double kGiB = static_cast<double>(1LL << 30);

// Python's f"{x / GiB_bytes:.2f}" of the older messages.
std::string gib2(Bytes b) { return python_fixed(static_cast<double>(b.value()) / kGiB, 2); }

}  // namespace

Bytes page_size(const KvLayerSpec& s) {
  // MambaSpec.page_size_bytes: page_size_padded, set to the attention page by the hybrid
  // block-size alignment.
  if (s.kind == KvLayerKind::kMamba) return bytes(s.mamba_page_bytes);
  if (s.kind == KvLayerKind::kMla) {
    // MLAAttentionSpec.real_page_size_bytes: block_size x num_kv_heads x head_size x dtype.
    return bytes(s.block_size * s.num_kv_heads * s.head_size * s.dtype_bytes);
  }
  // FullAttentionSpec.real_page_size_bytes (SlidingWindowSpec inherits it).
  return bytes(s.block_size * s.num_kv_heads * (s.head_size + s.head_size_v) * s.dtype_bytes);
}

Bytes max_memory_per_request(const KvLayerSpec& s, std::int64_t max_model_len,
                             std::int64_t max_num_batched_tokens) {
  const Bytes page = page_size(s);
  // MambaSpec.max_memory_usage_bytes: a fixed number of state pages whatever the length.
  if (s.kind == KvLayerKind::kMamba) return page * s.mamba_pages_per_request;
  if (s.kind == KvLayerKind::kSlidingWindow) {
    // SlidingWindowSpec.max_memory_usage_bytes: the window plus one chunk of prefill, and
    // one block more because the window's start need not be block-aligned.
    const std::int64_t tokens =
        std::min(s.sliding_window - 1 + max_num_batched_tokens, max_model_len);
    return page * (cdiv(tokens, s.block_size) + 1);
  }
  // FullAttentionSpec.max_memory_usage_bytes (MLA inherits it).
  return page * cdiv(max_model_len, s.block_size);
}

Result<KvCacheLayout> group_kv_layers(const std::vector<KvLayerSpec>& layers,
                                      bool uniform_type_groups) {
  KvCacheLayout out;
  if (layers.empty()) return Status{StatusCode::kInvalidInput, "the worker has no KV layers"};
  // is_kv_cache_spec_uniform: one group holding every layer.
  if (std::all_of(layers.begin(), layers.end(),
                  [&](const KvLayerSpec& s) { return s == layers.front(); })) {
    KvGroup g;
    g.spec = layers.front();
    for (size_t i = 0; i < layers.size(); ++i) g.layers.push_back(static_cast<int>(i));
    out.group_size = static_cast<std::int64_t>(layers.size());
    out.page = page_size(g.spec);
    out.min_block_size = g.spec.block_size;
    out.tensor_pages.assign(layers.size(), out.page);
    out.groups.push_back(std::move(g));
    return out;
  }
  // UniformTypeKVCacheSpecs.from_specs: every layer full attention (MLAAttentionSpec is one)
  // with one block size. The group stands as one spec whose page is the sum of the layers'
  // pages, so that the block count, one request's need and the concurrency below hold as for
  // any group (get_kv_cache_config_from_groups: available // that page).
  const std::int64_t block = layers.front().block_size;
  if (uniform_type_groups && std::all_of(layers.begin(), layers.end(), [&](const KvLayerSpec& s) {
        return (s.kind == KvLayerKind::kFull || s.kind == KvLayerKind::kMla) &&
               s.block_size == block;
      })) {
    KvGroup g;
    Bytes sum;
    for (size_t i = 0; i < layers.size(); ++i) {
      g.layers.push_back(static_cast<int>(i));
      out.tensor_pages.push_back(page_size(layers[i]));
      sum += out.tensor_pages.back();
    }
    g.spec = KvLayerSpec{KvLayerKind::kMla, block, 1, sum.value() / block, 0, 1, 0, 0, 1};
    out.group_size = 1;
    out.page = sum;
    out.min_block_size = block;
    out.groups.push_back(std::move(g));
    return out;
  }
  // unify_kv_cache_spec_page_size: raise each smaller page's block size by the ratio.
  Bytes max_page;
  for (const KvLayerSpec& s : layers) max_page = std::max(max_page, page_size(s));
  std::vector<KvLayerSpec> unified;
  for (const KvLayerSpec& s : layers) {
    KvLayerSpec u = s;
    const Bytes page = page_size(s);
    if (max_page.value() % page.value() != 0) {
      return Status{StatusCode::kInvalidInput,
                    "the KV page sizes of the model's layers (" + std::to_string(page.value()) +
                        " and " + std::to_string(max_page.value()) +
                        " B) are not multiples of each other; vLLM cannot unify them"};
    }
    u.block_size = s.block_size * (max_page.value() / page.value());
    unified.push_back(u);
  }
  // Layers of each kind, in layer order; kinds ordered by first appearance.
  std::vector<KvLayerSpec> kinds;
  std::vector<std::vector<int>> members;
  for (size_t i = 0; i < unified.size(); ++i) {
    auto it = std::find(kinds.begin(), kinds.end(), unified[i]);
    if (it == kinds.end()) {
      kinds.push_back(unified[i]);
      members.emplace_back();
      it = kinds.end() - 1;
    }
    members[static_cast<size_t>(it - kinds.begin())].push_back(static_cast<int>(i));
  }
  std::int64_t min_layers = static_cast<std::int64_t>(layers.size());
  std::int64_t max_layers = 0;
  for (const std::vector<int>& m : members) {
    min_layers = std::min(min_layers, static_cast<std::int64_t>(m.size()));
    max_layers = std::max(max_layers, static_cast<std::int64_t>(m.size()));
  }
  // _get_kv_cache_groups_uniform_page_size: the group size, and padding of the last group.
  std::int64_t group_size = min_layers;
  if (static_cast<double>(max_layers) < 1.5 * static_cast<double>(min_layers)) {
    group_size = max_layers;
  }
  out.group_size = group_size;
  out.page = max_page;
  out.tensor_pages.assign(static_cast<size_t>(group_size), max_page);
  out.min_block_size = unified.front().block_size;
  for (size_t k = 0; k < kinds.size(); ++k) {
    const std::vector<int>& m = members[k];
    const std::int64_t n = static_cast<std::int64_t>(m.size());
    const std::int64_t num_groups = cdiv(n, group_size);
    if (num_groups * group_size > n) out.paddings.push_back({num_groups * group_size - n, n});
    for (std::int64_t g = 0; g < num_groups; ++g) {
      KvGroup group;
      group.spec = kinds[k];
      for (std::int64_t i = g; i < n; i += num_groups) {
        group.layers.push_back(m[static_cast<size_t>(i)]);
      }
      out.min_block_size = std::min(out.min_block_size, kinds[k].block_size);
      out.groups.push_back(std::move(group));
    }
  }
  return out;
}

double requested_memory(Bytes total, double gpu_memory_utilization, const VersionRules& rules) {
  const double product = static_cast<double>(total.value()) * gpu_memory_utilization;
  // vllm v1/worker/utils.py request_memory: math.ceil(total_memory * util).
  return rules.memory_utils_refactor ? std::ceil(product) : product;
}

std::string budget_error(Bytes free, Bytes total, double gpu_memory_utilization, int local_rank,
                         const VersionRules& rules) {
  const double requested = requested_memory(total, gpu_memory_utilization, rules);
  if (static_cast<double>(free.value()) >= requested) return "";
  // vllm v1/worker/utils.py request_memory (v0.10 gpu_worker.py init_device before it): every
  // figure is round(b / GiB, 2) printed by an f-string; the device is named from PR #30868.
  const std::string device =
      rules.memory_utils_refactor ? " cuda:" + std::to_string(local_rank) : "";
  return "ValueError: Free memory on device" + device + " (" + format_gib(free) + "/" +
         format_gib(total) + " GiB) on startup is less than desired GPU memory utilization (" +
         python_float_repr(gpu_memory_utilization) + ", " + format_gib(requested) +
         " GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.";
}

Bytes available_kv_cache_memory(double requested, const ProfileResult& p) {
  const double non_kv =
      static_cast<double>((p.non_torch_increase + p.torch_peak_increase + p.weights).value());
  const double available = requested - non_kv - static_cast<double>(p.cudagraph_estimate.value());
  return bytes(static_cast<std::int64_t>(std::trunc(available)));
}

bool kv_cache_memory_suffices(Bytes available, Bytes needed) {
  // kv_cache_utils.py check_enough_kv_cache_memory: available_memory <= 0 raises "No available
  // memory", then needed_memory > available_memory raises "To serve at least one request".
  return available > bytes(0) && needed <= available;
}

std::optional<double> smallest_gpu_memory_utilization(Bytes total, const ProfileResult& p,
                                                      Bytes needed, const VersionRules& rules) {
  for (int percent = 1; percent <= 100; ++percent) {
    const double util = percent / 100.0;
    const Bytes available = available_kv_cache_memory(requested_memory(total, util, rules), p);
    if (kv_cache_memory_suffices(available, needed)) return util;
  }
  return std::nullopt;
}

std::int64_t max_model_len_within(Bytes available, Bytes needed, std::int64_t max_model_len,
                                  std::int64_t block_size) {
  const std::int64_t blocks = cdiv(max_model_len, block_size);
  if (blocks <= 0 || needed <= bytes(0) || available <= bytes(0)) return 0;
  // The bytes of one block across the layers, rounded up: the length found never needs more.
  const std::int64_t per_block = cdiv(needed.value(), blocks);
  return std::min(available.value() / per_block * block_size, max_model_len);
}

std::int64_t blocks_per_request(const KvLayerSpec& s, std::int64_t max_model_len,
                                std::int64_t max_num_batched_tokens) {
  return cdiv(max_memory_per_request(s, max_model_len, max_num_batched_tokens).value(),
              page_size(s).value());
}

std::int64_t num_blocks(Bytes available, const KvCacheLayout& layout) {
  // kv_cache_utils.py _get_kv_cache_config_deepseek_v4: available // (the full-MLA page sizes
  // summed x the layer tuples).
  if (layout.block_bytes > bytes(0)) return available.value() / layout.block_bytes.value();
  // vllm v1/core/kv_cache_utils.py get_num_blocks: int(available_memory // page_size //
  // num_layers), floor divisions of a non-negative integer.
  return available.value() / layout.page.value() / layout.group_size;
}

Bytes max_memory_per_request(const KvCacheLayout& layout, std::int64_t max_model_len,
                             std::int64_t max_num_batched_tokens) {
  if (layout.block_bytes > bytes(0)) {
    // _max_memory_usage_bytes_from_groups, DeepSeek-V4 branch: the layer tuples x their bytes x
    // every group's max_memory_usage_pages.
    std::int64_t blocks = 0;
    for (const KvGroup& g : layout.groups) {
      blocks += blocks_per_request(g.spec, max_model_len, max_num_batched_tokens);
    }
    return layout.block_bytes * blocks;
  }
  std::int64_t pages = 0;
  for (const KvGroup& g : layout.groups) {
    const Bytes need = max_memory_per_request(g.spec, max_model_len, max_num_batched_tokens);
    pages += cdiv(need.value(), layout.page.value());
  }
  return layout.page * (pages * layout.group_size);
}

double max_concurrency(std::int64_t num_blocks, const KvCacheLayout& layout,
                       std::int64_t max_model_len, std::int64_t max_num_batched_tokens) {
  if (layout.block_bytes > bytes(0)) {
    // get_max_concurrency_for_kv_cache_config over UniformTypeKVCacheSpecs groups: each group's
    // pages per request at its own page, in blocks of the first group's page.
    std::int64_t per_request = 0;
    for (const KvGroup& g : layout.groups) {
      per_request +=
          blocks_per_request(g.spec, max_model_len, max_num_batched_tokens) * g.packed_page.value();
    }
    const std::int64_t blocks = cdiv(per_request, layout.groups.front().packed_page.value());
    return static_cast<double>(num_blocks) / static_cast<double>(blocks);
  }
  // get_max_concurrency_for_kv_cache_config: layers per group x the per-request bytes of
  // every group, over the bytes of one block across the group's layers.
  std::int64_t per_request = 0;
  for (const KvGroup& g : layout.groups) {
    per_request += max_memory_per_request(g.spec, max_model_len, max_num_batched_tokens).value();
  }
  const std::int64_t memory_per_block = layout.page.value() * layout.group_size;
  const std::int64_t blocks_per_request = cdiv(per_request * layout.group_size, memory_per_block);
  return static_cast<double>(num_blocks) / static_cast<double>(blocks_per_request);
}

std::int64_t logged_token_count(std::int64_t num_blocks, const KvCacheLayout& layout,
                                std::int64_t max_model_len, std::int64_t max_num_batched_tokens,
                                const VersionRules& rules) {
  if (rules.token_log_from_concurrency) {
    // kv_cache_utils.py get_kv_cache_capacity: int(max_concurrency * max_model_len).
    const double c = max_concurrency(num_blocks, layout, max_model_len, max_num_batched_tokens);
    return static_cast<std::int64_t>(c * static_cast<double>(max_model_len));
  }
  // kv_cache_utils.py _report_kv_cache_config before PR #41069.
  return num_blocks / static_cast<std::int64_t>(layout.groups.size()) * layout.min_block_size;
}

std::int64_t estimate_max_model_len(Bytes available, const KvCacheLayout& layout,
                                    std::int64_t max_model_len,
                                    std::int64_t max_num_batched_tokens) {
  // Binary search over [1, max_model_len].
  auto fits = [&](std::int64_t len) {
    return max_memory_per_request(layout, len, max_num_batched_tokens) <= available;
  };
  std::int64_t estimated = 0;
  if (!fits(1)) return 0;
  std::int64_t left = 1;
  std::int64_t right = max_model_len;
  while (left <= right) {
    const std::int64_t mid = (left + right) / 2;
    if (fits(mid)) {
      estimated = mid;
      left = mid + 1;
    } else {
      right = mid - 1;
    }
  }
  return estimated;
}

std::string not_enough_kv_cache_error(Bytes available, const KvCacheLayout& layout,
                                      std::int64_t max_model_len,
                                      std::int64_t max_num_batched_tokens,
                                      const VersionRules& rules) {
  const Bytes needed = max_memory_per_request(layout, max_model_len, max_num_batched_tokens);
  if (needed <= available) return "";
  const std::int64_t estimated =
      estimate_max_model_len(available, layout, max_model_len, max_num_batched_tokens);
  const std::string estimate =
      estimated > 0 ? "Based on the available memory, the estimated maximum model length is " +
                          std::to_string(estimated) + ". "
                    : "";
  // check_enough_kv_cache_memory; the wording changed with the format_gib refactor
  // (both versions are in public logs; the release of the change is UNCONFIRMED).
  if (rules.memory_utils_refactor) {
    return "ValueError: To serve at least one request with the model's max seq len (" +
           std::to_string(max_model_len) + "), (" + format_gib(needed) +
           " GiB KV cache is needed, which is larger than the available KV cache memory (" +
           format_gib(available) + " GiB). " + estimate +
           "Try increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU "
           "backend) or decreasing `max_model_len` when initializing the engine. See "
           "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.";
  }
  return "ValueError: To serve at least one request with the models's max seq len (" +
         std::to_string(max_model_len) + "), (" + gib2(needed) +
         " GiB KV cache is needed, which is larger than the available KV cache memory (" +
         gib2(available) + " GiB). " + estimate +
         "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
         "initializing the engine.";
}

std::string no_available_memory_error() {
  // kv_cache_utils.py check_enough_kv_cache_memory.
  return "ValueError: No available memory for the cache blocks. Try increasing "
         "`gpu_memory_utilization` when initializing the engine.";
}

std::string mamba_blocks_below_max_num_seqs_error(std::int64_t max_num_seqs, std::int64_t blocks) {
  // v1/worker/gpu_model_runner.py _check_and_update_cudagraph_mode (PR #38270).
  const std::string b = std::to_string(blocks);
  return "ValueError: max_num_seqs (" + std::to_string(max_num_seqs) +
         ") exceeds available Mamba cache blocks (" + b +
         "). Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot "
         "proceed. Please lower max_num_seqs to at most " +
         b + " or increase gpu_memory_utilization.";
}

std::string format_gib(double b) { return python_float_repr(python_round(b / kGiB, 2)); }
std::string format_gib(Bytes b) { return format_gib(static_cast<double>(b.value())); }

}  // namespace gpumem::vllm
