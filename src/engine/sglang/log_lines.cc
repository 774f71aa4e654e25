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
                                EngineGiB mem_usage, const VersionRules& rules) {
  // The newest releases print the checkpoint's quantization ("quant=fp8, fmt=e4m3") in
  // place of the dtype; which methods print what is not known, so no field is printed.
  const std::string type = "type=" + arch + (rules.load_log_has_dtype ? ", dtype=" + dtype : "");
  return "Load weight end. " + type + ", avail mem=" + gb(avail) +
         " GB, mem usage=" + gb(mem_usage) + " GB.";
}

namespace {

std::string kv_allocated(std::int64_t tokens, const std::string& kv_dtype,
                         const VersionRules& rules) {
  return std::string("KV Cache is allocated. ") +
         (rules.kv_log_has_dtype ? "dtype: " + kv_dtype + ", " : "") +
         "#tokens: " + std::to_string(tokens);
}

// Python's str() of a list of ints: "[1, 2, 4]".
std::string python_list(const std::vector<std::int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(values[i]);
  }
  return s + "]";
}

std::string graph_kind_name(const GraphKind& kind) {
  return kind.verify ? "Capture target verify CUDA graph" : "Capture target decode CUDA graph";
}

}  // namespace

std::string log_kv_allocated_mha(std::int64_t tokens, Bytes k_size, Bytes v_size,
                                 const std::string& kv_dtype, const VersionRules& rules) {
  return kv_allocated(tokens, kv_dtype, rules) + ", K size: " + gb(k_size) +
         " GB, V size: " + gb(v_size) + " GB";
}

std::string log_kv_allocated_mla(std::int64_t tokens, Bytes kv_size, const std::string& kv_dtype,
                                 const VersionRules& rules) {
  return kv_allocated(tokens, kv_dtype, rules) + ", KV size: " + gb(kv_size) + " GB";
}

std::string log_memory_pool_end(EngineGiB avail) {
  return "Memory pool end. avail mem=" + gb(avail) + " GB";
}

std::string log_capture_begin(EngineGiB avail, const GraphKind& kind, const VersionRules& rules) {
  if (!rules.graph_log_per_kind) {
    return "Capture cuda graph begin. This can take up to several minutes. avail mem=" + gb(avail) +
           " GB";
  }
  // The runner refactor of PR #23906 (v0.5.12): "backend=full, num_tokens_per_req=N,
  // bs=[...]", num_tokens_per_bs before v0.5.17 (staging/releases/sglang.md §9).
  return graph_kind_name(kind) + " begin. backend=full, " +
         (rules.graph_log_tokens_per_req ? "num_tokens_per_req=" : "num_tokens_per_bs=") +
         std::to_string(kind.tokens_per_bs) + ", bs=" + python_list(kind.batch_sizes) +
         ", avail mem=" + gb(avail) + " GB";
}

std::string log_capture_end(EngineGiB mem_usage, EngineGiB avail, const GraphKind& kind,
                            const VersionRules& rules) {
  if (!rules.graph_log_per_kind) {
    return "Capture cuda graph end. mem usage=" + gb(mem_usage) + " GB. avail mem=" + gb(avail) +
           " GB.";
  }
  return graph_kind_name(kind) + " end. mem usage=" + gb(mem_usage) +
         " GB, avail mem=" + gb(avail) + " GB.";
}

std::string log_capturing_batch(std::int64_t bs, EngineGiB avail) {
  return "Capturing batches (bs=" + std::to_string(bs) + " avail_mem=" + gb(avail) + " GB)";
}

std::string log_summary(std::int64_t max_total_num_tokens, std::int64_t chunked_prefill_size,
                        std::int64_t max_prefill_tokens, std::int64_t max_running_requests,
                        std::int64_t context_len, EngineGiB available_gpu_mem,
                        const VersionRules& rules) {
  std::string s = "max_total_num_tokens=" + std::to_string(max_total_num_tokens) +
                  ", chunked_prefill_size=" + std::to_string(chunked_prefill_size) +
                  ", max_prefill_tokens=" + std::to_string(max_prefill_tokens) +
                  ", max_running_requests=" + std::to_string(max_running_requests) +
                  ", context_len=" + std::to_string(context_len);
  if (rules.summary_has_available_mem) {
    s += ", available_gpu_mem=" + gb(available_gpu_mem) + " GB";
  }
  return s;
}

}  // namespace gpumem::sglang
