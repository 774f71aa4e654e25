// SGLang's start-up log lines about memory, with its wording and rounding, so a simulated
// start-up can be held next to a real log line by line. SGLang prints GiB (bytes / 2^30)
// but labels them "GB"; every figure is Python's `{x:.2f}`. Elapsed-time fields are left
// out: the simulator has no clock. The wording differs by release (version.h,
// staging/releases/sglang.md §9).
#ifndef GPUMEM_ENGINE_SGLANG_LOG_LINES_H_
#define GPUMEM_ENGINE_SGLANG_LOG_LINES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/units.h"
#include "engine/sglang/version.h"

namespace gpumem::sglang {

// model_runner.py init_torch_distributed
std::string log_init_distributed_end(EngineGiB mem_usage);
// model_runner.py load_model
std::string log_load_weight_begin(EngineGiB avail);
std::string log_load_weight_end(const std::string& arch, const std::string& dtype, EngineGiB avail,
                                EngineGiB mem_usage, const VersionRules& rules);
// memory_pool.py MHATokenToKVPool / MLATokenToKVPool _create_buffers; `kv_dtype` is the
// pool's torch dtype, printed by the releases whose rules say so.
std::string log_kv_allocated_mha(std::int64_t tokens, Bytes k_size, Bytes v_size,
                                 const std::string& kv_dtype, const VersionRules& rules);
std::string log_kv_allocated_mla(std::int64_t tokens, Bytes kv_size, const std::string& kv_dtype,
                                 const VersionRules& rules);
// model_runner.py init_memory_pool
std::string log_memory_pool_end(EngineGiB avail);
// The decode graphs of the target model: "decode", or "verify" under speculative decoding,
// each batch size with `tokens_per_bs` tokens.
struct GraphKind {
  bool verify = false;
  std::int64_t tokens_per_bs = 1;
  std::vector<std::int64_t> batch_sizes;
};
// model_runner.py init_device_graphs (v0.5.12: model_runner_components, one pair per kind)
std::string log_capture_begin(EngineGiB avail, const GraphKind& kind, const VersionRules& rules);
std::string log_capture_end(EngineGiB mem_usage, EngineGiB avail, const GraphKind& kind,
                            const VersionRules& rules);
// cuda_graph_runner.py CudaGraphRunner.capture: tqdm description per captured batch size
std::string log_capturing_batch(std::int64_t bs, EngineGiB avail);
// scheduler.py: the summary line once the worker is ready
std::string log_summary(std::int64_t max_total_num_tokens, std::int64_t chunked_prefill_size,
                        std::int64_t max_prefill_tokens, std::int64_t max_running_requests,
                        std::int64_t context_len, EngineGiB available_gpu_mem,
                        const VersionRules& rules);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_LOG_LINES_H_
