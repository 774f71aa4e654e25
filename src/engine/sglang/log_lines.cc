#include "engine/sglang/log_lines.h"

#include "core/python_format.h"

namespace gpumem::sglang {
namespace {

std::string gb(EngineGiB g) { return python_fixed(g.value(), 2); }
std::string gb(Bytes b) { return python_fixed(to_engine_gib(b).value(), 2); }

}  // namespace

std::string log_init_distributed_end(EngineGiB mem_usage) {
  return "Init torch distributed ends. mem usage=" + gb(mem_usage) + " GB";
}

std::string log_load_weight_begin(EngineGiB avail) {
  return "Load weight begin. avail mem=" + gb(avail) + " GB";
}

std::string log_load_weight_end(const std::string& arch, const std::string& dtype, EngineGiB avail,
                                EngineGiB mem_usage) {
  return "Load weight end. type=" + arch + ", dtype=" + dtype + ", avail mem=" + gb(avail) +
         " GB, mem usage=" + gb(mem_usage) + " GB.";
}

std::string log_kv_allocated_mha(std::int64_t tokens, Bytes k_size, Bytes v_size) {
  return "KV Cache is allocated. #tokens: " + std::to_string(tokens) + ", K size: " + gb(k_size) +
         " GB, V size: " + gb(v_size) + " GB";
}

std::string log_kv_allocated_mla(std::int64_t tokens, Bytes kv_size) {
  return "KV Cache is allocated. #tokens: " + std::to_string(tokens) + ", KV size: " + gb(kv_size) +
         " GB";
}

std::string log_memory_pool_end(EngineGiB avail) {
  return "Memory pool end. avail mem=" + gb(avail) + " GB";
}

std::string log_capture_begin(EngineGiB avail) {
  return "Capture cuda graph begin. This can take up to several minutes. avail mem=" + gb(avail) +
         " GB";
}

std::string log_capture_end(EngineGiB mem_usage, EngineGiB avail) {
  return "Capture cuda graph end. mem usage=" + gb(mem_usage) + " GB. avail mem=" + gb(avail) +
         " GB.";
}

std::string log_capturing_batch(std::int64_t bs, EngineGiB avail) {
  return "Capturing batches (bs=" + std::to_string(bs) + " avail_mem=" + gb(avail) + " GB)";
}

std::string log_summary(std::int64_t max_total_num_tokens, std::int64_t chunked_prefill_size,
                        std::int64_t max_prefill_tokens, std::int64_t max_running_requests,
                        std::int64_t context_len, EngineGiB available_gpu_mem) {
  return "max_total_num_tokens=" + std::to_string(max_total_num_tokens) +
         ", chunked_prefill_size=" + std::to_string(chunked_prefill_size) +
         ", max_prefill_tokens=" + std::to_string(max_prefill_tokens) +
         ", max_running_requests=" + std::to_string(max_running_requests) +
         ", context_len=" + std::to_string(context_len) +
         ", available_gpu_mem=" + gb(available_gpu_mem) + " GB";
}

}  // namespace gpumem::sglang
