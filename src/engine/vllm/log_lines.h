// vLLM's start-up log lines about memory, with its wording and rounding per release, so a
// simulated start-up can be held next to a real log line by line. GiB are bytes / 2^30:
// format_gib figures are round(x, 2) printed by Python (0.5, 14.99); older lines use
// "%.2f" or "%.4f". As in gpumem's SGLang lines, elapsed-time fields are left out (the
// simulator has no clock): "Model loading took 14.9889 GiB" stands for "... GiB and 126.3
// seconds", "Graph capturing finished, took 0.67 GiB" for "... finished in 5 secs, took ...".
#ifndef GPUMEM_ENGINE_VLLM_LOG_LINES_H_
#define GPUMEM_ENGINE_VLLM_LOG_LINES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/units.h"
#include "engine/vllm/version.h"

namespace gpumem::vllm {

// v1/worker/gpu_model_runner.py load_model
std::string log_model_loading(Bytes model_memory_usage, const VersionRules& rules);
// v1/worker/gpu_worker.py determine_available_memory
std::string log_available_kv_cache_memory(Bytes available, const VersionRules& rules);
std::string log_kv_cache_memory_override(Bytes init_free, Bytes kv_cache_memory,
                                         const VersionRules& rules);
std::string log_cudagraph_estimate_note(double gpu_memory_utilization, Bytes estimate, Bytes total);
// The same figure where the estimate is not charged (v0.17.0 to v0.20.x without
// VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1): the utilization that would make up for it.
std::string log_cudagraph_estimate_hint(double gpu_memory_utilization, Bytes estimate, Bytes total);
// v1/worker/gpu_model_runner.py profile_cudagraph_memory
std::string log_profiling_cudagraph_memory(std::int64_t piecewise, std::int64_t piecewise_largest,
                                           std::int64_t full, std::int64_t full_largest);
std::string log_estimated_cudagraph_memory(Bytes estimate);
// v1/core/kv_cache_utils.py
std::string log_padding_layers(std::int64_t added, std::int64_t layers);
// config.py HybridAttentionMambaModelConfig (platforms/interface.py in later releases):
// "Setting attention block size to N tokens ..." and "Padding mamba page size by X% ...".
std::string log_hybrid_block_size(std::int64_t block_size);
std::string log_mamba_page_padding(std::int64_t state_bytes, std::int64_t page_bytes);
// v1/worker/gpu_model_runner.py profile_run, for a multimodal model whose encoder it runs
std::string log_encoder_cache(std::int64_t budget, std::int64_t items, std::string_view modality);
std::string log_num_gpu_blocks_override(std::int64_t num_blocks, std::int64_t override_blocks);
std::string log_kv_cache_size(std::int64_t tokens);
// v1/core/kv_cache_utils.py _auto_fit_max_model_len (--max-model-len auto): the model's
// length kept, or cut to `fitted`.
std::string log_auto_fit(std::int64_t model_length, std::int64_t fitted, Bytes available);
std::string log_max_concurrency(std::int64_t max_model_len, double concurrency);
// v1/worker/gpu_model_runner.py capture_model (the tqdm descriptions, counts only)
std::string log_capturing(bool full, std::int64_t graphs);
// distributed/device_communicators/custom_all_reduce.py register_graph_buffers
std::string log_registering_graph_addresses(std::int64_t addresses);
std::string log_graph_capturing_finished(Bytes took);
// v1/worker/gpu_worker.py compile_or_warm_up_model
std::string log_graph_pool_memory(Bytes actual, Bytes estimate);

// The kv-cache-memory suggestion printed after capture when --kv-cache-memory is unset.
struct MemorySummary {
  Bytes init_free;
  Bytes total;
  double gpu_memory_utilization = 0;
  double requested = 0;
  Bytes weights;
  Bytes peak_activation;
  Bytes non_torch;
  Bytes cuda_graph;
  Bytes available_kv_cache;
  Bytes redundancy;  // kept spare by both suggestions
};
std::string log_memory_summary(const MemorySummary& s);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_LOG_LINES_H_
