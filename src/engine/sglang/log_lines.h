// SGLang's start-up log lines about memory, with its wording and rounding, so a simulated
// start-up can be held next to a real log line by line. SGLang prints GiB (bytes / 2^30)
// but labels them "GB"; every figure is Python's `{x:.2f}`. Elapsed-time fields are left
// out: the simulator has no clock.
#ifndef GPUMEM_ENGINE_SGLANG_LOG_LINES_H_
#define GPUMEM_ENGINE_SGLANG_LOG_LINES_H_

#include <cstdint>
#include <string>

#include "core/units.h"

namespace gpumem::sglang {

// model_runner.py init_torch_distributed
std::string log_init_distributed_end(EngineGiB mem_usage);
// model_runner.py load_model
std::string log_load_weight_begin(EngineGiB avail);
std::string log_load_weight_end(const std::string& arch, const std::string& dtype, EngineGiB avail,
                                EngineGiB mem_usage);
// memory_pool.py MHATokenToKVPool / MLATokenToKVPool _create_buffers
std::string log_kv_allocated_mha(std::int64_t tokens, Bytes k_size, Bytes v_size);
std::string log_kv_allocated_mla(std::int64_t tokens, Bytes kv_size);
// model_runner.py init_memory_pool
std::string log_memory_pool_end(EngineGiB avail);
// model_runner.py init_device_graphs
std::string log_capture_begin(EngineGiB avail);
std::string log_capture_end(EngineGiB mem_usage, EngineGiB avail);
// cuda_graph_runner.py CudaGraphRunner.capture: tqdm description per captured batch size
std::string log_capturing_batch(std::int64_t bs, EngineGiB avail);
// scheduler.py: the summary line once the worker is ready
std::string log_summary(std::int64_t max_total_num_tokens, std::int64_t chunked_prefill_size,
                        std::int64_t max_prefill_tokens, std::int64_t max_running_requests,
                        std::int64_t context_len, EngineGiB available_gpu_mem);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_LOG_LINES_H_
