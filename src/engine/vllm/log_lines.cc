#include "engine/vllm/log_lines.h"

#include <algorithm>

#include "core/python_format.h"
#include "engine/vllm/kv_sizing.h"

namespace gpumem::vllm {
namespace {

double gib_value(Bytes b) {
  return static_cast<double>(b.value()) / static_cast<double>(1LL << 30);
}

// Python's f"{n:,}" for a non-negative count.
std::string thousands(std::int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string log_model_loading(Bytes model_memory_usage, const VersionRules& rules) {
  // "Model loading took %.4f GiB and %.6f seconds" (v0.10), "... GiB memory and ..." later,
  // format_gib from the mem_utils refactor.
  const std::string figure = rules.memory_utils_refactor
                                 ? format_gib(model_memory_usage)
                                 : python_fixed(gib_value(model_memory_usage), 4);
  return "Model loading took " + figure + " GiB" + (rules.loading_log_says_memory ? " memory" : "");
}

std::string log_available_kv_cache_memory(Bytes available, const VersionRules& rules) {
  const std::string figure =
      rules.memory_utils_refactor ? format_gib(available) : python_fixed(gib_value(available), 2);
  return "Available KV cache memory: " + figure + " GiB";
}

std::string log_kv_cache_memory_override(Bytes init_free, Bytes kv_cache_memory,
                                         const VersionRules& rules) {
  auto gib = [&](Bytes b) {
    return rules.memory_utils_refactor ? format_gib(b) : python_fixed(gib_value(b), 2);
  };
  return "Initial free memory " + gib(init_free) + " GiB, reserved " + gib(kv_cache_memory) +
         " GiB memory for KV Cache as specified by kv_cache_memory_bytes config and skipped "
         "memory profiling. This does not respect the gpu_memory_utilization config. Only use "
         "kv_cache_memory_bytes config when you want manual control of KV cache memory size. If "
         "OOM'ed, check the difference of initial free memory between the current run and the "
         "previous run where kv_cache_memory_bytes is suggested and update it correspondingly.";
}

std::string log_cudagraph_estimate_note(double util, Bytes estimate, Bytes total) {
  // gpu_worker.py determine_available_memory: the utilization the estimate is worth.
  const double delta = static_cast<double>(estimate.value()) / static_cast<double>(total.value());
  const double equivalent = python_round(util - delta, 4);
  const double suggested = std::min(python_round(util + delta, 4), 1.0);
  return "CUDA graph memory profiling is enabled (default since v0.21.0). The current "
         "--gpu-memory-utilization=" +
         python_fixed(util, 4) +
         " is equivalent to --gpu-memory-utilization=" + python_fixed(equivalent, 4) +
         " without CUDA graph memory profiling. To maintain the same effective KV cache size as "
         "before, increase --gpu-memory-utilization to " +
         python_fixed(suggested, 4) +
         ". To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.";
}

std::string log_cudagraph_estimate_hint(double util, Bytes estimate, Bytes total) {
  // gpu_worker.py determine_available_memory (v0.18.x logs print it at gpu_worker.py:470).
  const double delta = static_cast<double>(estimate.value()) / static_cast<double>(total.value());
  const double suggested = std::min(python_round(util + delta, 4), 1.0);
  return "In v0.19, CUDA graph memory profiling will be enabled by default "
         "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1), which more accurately accounts for CUDA "
         "graph memory during KV cache allocation. To try it now, set "
         "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 and increase --gpu-memory-utilization from " +
         python_fixed(util, 4) + " to " + python_fixed(suggested, 4) +
         " to maintain the same effective KV cache size.";
}

std::string log_profiling_cudagraph_memory(std::int64_t piecewise, std::int64_t piecewise_largest,
                                           std::int64_t full, std::int64_t full_largest) {
  return "Profiling CUDA graph memory: PIECEWISE=" + std::to_string(piecewise) +
         " (largest=" + std::to_string(piecewise_largest) + "), FULL=" + std::to_string(full) +
         " (largest=" + std::to_string(full_largest) + ")";
}

std::string log_estimated_cudagraph_memory(Bytes estimate) {
  return "Estimated CUDA graph memory: " + python_fixed(gib_value(estimate), 2) + " GiB total";
}

std::string log_padding_layers(std::int64_t added, std::int64_t layers) {
  return "Add " + std::to_string(added) + " padding layers, may waste at most " +
         python_fixed(static_cast<double>(added) / static_cast<double>(layers) * 100, 2) +
         "% KV cache memory";
}

std::string log_hybrid_block_size(std::int64_t block_size) {
  return "Setting attention block size to " + std::to_string(block_size) +
         " tokens to ensure that attention page size is >= mamba page size.";
}

std::string log_encoder_cache(std::int64_t budget, std::int64_t items, std::string_view modality) {
  return "Encoder cache will be initialized with a budget of " + std::to_string(budget) +
         " tokens, and profiled with " + std::to_string(items) + " " + std::string(modality) +
         " items of the maximum feature size.";
}

std::string log_mamba_page_padding(std::int64_t state_bytes, std::int64_t page_bytes) {
  return "Padding mamba page size by " +
         python_fixed(100.0 * static_cast<double>(page_bytes - state_bytes) /
                          static_cast<double>(state_bytes),
                      2) +
         "% to ensure that mamba page size and attention page size are exactly equal.";
}

std::string log_num_gpu_blocks_override(std::int64_t num_blocks, std::int64_t override_blocks) {
  return "Overriding num_gpu_blocks=" + std::to_string(num_blocks) +
         " with num_gpu_blocks_override=" + std::to_string(override_blocks);
}

std::string log_kv_cache_size(std::int64_t tokens) {
  return "GPU KV cache size: " + thousands(tokens) + " tokens";
}

std::string log_auto_fit(std::int64_t model_length, std::int64_t fitted, Bytes available) {
  if (fitted >= model_length) {
    return "Auto-fit max_model_len: full model context length " + std::to_string(model_length) +
           " fits in available GPU memory";
  }
  return "Auto-fit max_model_len: reduced from " + std::to_string(model_length) + " to " +
         std::to_string(fitted) + " to fit in available GPU memory (" + format_gib(available) +
         " GiB available for KV cache)";
}

std::string log_max_concurrency(std::int64_t max_model_len, double concurrency) {
  return "Maximum concurrency for " + thousands(max_model_len) +
         " tokens per request: " + python_fixed(concurrency, 2) + "x";
}

std::string log_capturing(bool full, std::int64_t graphs) {
  return std::string("Capturing CUDA graphs (") +
         (full ? "decode, FULL" : "mixed prefill-decode, PIECEWISE") +
         "): " + std::to_string(graphs) + "/" + std::to_string(graphs);
}

std::string log_registering_graph_addresses(std::int64_t addresses) {
  return "Registering " + std::to_string(addresses) + " cuda graph addresses";
}

std::string log_graph_capturing_finished(Bytes took) {
  return "Graph capturing finished, took " + python_fixed(gib_value(took), 2) + " GiB";
}

std::string log_graph_pool_memory(Bytes actual, Bytes estimate) {
  const Bytes diff = actual > estimate ? actual - estimate : estimate - actual;
  const double percent = 100.0 * static_cast<double>(diff.value()) /
                         static_cast<double>(std::max<std::int64_t>(actual.value(), 1));
  return "CUDA graph pool memory: " + format_gib(actual) + " GiB (actual), " +
         format_gib(estimate) + " GiB (estimated), difference: " + format_gib(diff) + " GiB (" +
         python_fixed(percent, 1) + "%).";
}

std::string log_memory_summary(const MemorySummary& s) {
  // gpu_worker.py compile_or_warm_up_model: the two --kv-cache-memory figures keep a
  // redundancy buffer; the wording is v0.10.2's (later releases reword it, UNCONFIRMED
  // before v0.22).
  const std::int64_t redundancy = s.redundancy.value();
  const std::int64_t non_kv = (s.weights + s.peak_activation + s.non_torch + s.cuda_graph).value();
  const std::int64_t to_gpu = s.init_free.value() - non_kv - redundancy;
  const std::int64_t to_requested = static_cast<std::int64_t>(s.requested) - non_kv - redundancy;
  return "Free memory on device (" + format_gib(s.init_free) + "/" + format_gib(s.total) +
         " GiB) on startup. Desired GPU memory utilization is (" +
         python_float_repr(s.gpu_memory_utilization) + ", " + format_gib(s.requested) +
         " GiB). Actual usage is " + format_gib(s.weights) + " GiB for weight, " +
         format_gib(s.peak_activation) + " GiB for peak activation, " + format_gib(s.non_torch) +
         " GiB for non-torch memory, and " + format_gib(s.cuda_graph) +
         " GiB for CUDAGraph memory. Replace gpu_memory_utilization config with "
         "`--kv-cache-memory=" +
         std::to_string(to_requested) +
         "` to fit into requested memory, or `--kv-cache-memory=" + std::to_string(to_gpu) +
         "` to fully utilize gpu memory. Current kv cache memory in use is " +
         std::to_string(s.available_kv_cache.value()) + " bytes.";
}

}  // namespace gpumem::vllm
