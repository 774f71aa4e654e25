#include "runtime/fact_ids.h"

#include <utility>

namespace gpumem::fact_id {

std::string step_uncertainty(std::string_view step) {
  return std::string(kStepUncertaintyPrefix) + std::string(step);
}

std::string fact_id_of_v1_label(std::string_view label) {
  // Every label gpumem wrote before ids (git 03a89d4 and earlier), with its id.
  static constexpr std::pair<std::string_view, std::string_view> kLabels[] = {
      {"--mem-fraction-static", kMemFractionStatic},
      {"mem_fraction_static source", "mem_fraction_static_source"},
      {"chunked_prefill_size", "chunked_prefill_size"},
      {"cuda_graph_max_bs", kCudaGraphMaxBs},
      {"context_len", kContextLen},
      {"kv cache dtype", "kv_cache_dtype"},
      {"attention backend", "attention_backend"},
      {"page_size", "page_size"},
      {"custom all-reduce", "custom_all_reduce"},
      {"--gpu-memory-utilization", kGpuMemoryUtilization},
      {"max_model_len", kMaxModelLen},
      {"max_num_seqs", kMaxNumSeqs},
      {"max_num_batched_tokens", "max_num_batched_tokens"},
      {"block_size", "block_size"},
      {"cudagraph_mode", "cudagraph_mode"},
      {"max_cudagraph_capture_size", kMaxCudagraphCaptureSize},
      {"cuda graph capture sizes", "cuda_graph_capture_sizes"},
      {"graphs captured (PIECEWISE, FULL)", "cuda_graphs_captured"},
      {"CUDA-graph memory estimate", "cuda_graph_estimate_enabled"},
      {"symmetric-memory all-reduce", "symm_mem_all_reduce"},
      {"NCCL_CUMEM_ENABLE", "nccl_cumem_enable"},
      {"speculative", "speculative"},
      {"F (free before weights, world MIN)", kFreeBeforeWeights},
      {"weights allocated (logical)", kWeightsLogicalBytes},
      {"A (free after weights, world MIN)", kFreeAfterWeights},
      {"rest (GiB)", "kv_rest_gib"},
      {"cell_size (bytes per token)", kKvCellBytes},
      {"profiled tokens", "profiled_tokens"},
      {"max_total_num_tokens", kKvTokens},
      {"swa tokens", "swa_kv_tokens"},
      {"req_to_token rows", "req_to_token_rows"},
      {"max_running_requests", kMaxRunningRequests},
      {"draft cell_size (bytes per token)", "draft_kv_cell_bytes"},
      {"cuda graph batch sizes", "cuda_graph_batch_sizes"},
      {"available_gpu_mem at ready", kFreeAtReady},
      {"free memory at the init snapshot", "init_snapshot_free"},
      {"requested memory (total x gpu_memory_utilization)", kRequestedMemory},
      {"model_memory_usage", kWeightsBytes},
      {"torch peak increase (activation peak)", kActivationPeakBytes},
      {"non-torch increase", "non_torch_bytes"},
      {"cuda graph estimate", "cuda_graph_estimate_bytes"},
      {"available KV cache memory", kKvBytes},
      {"page size (bytes per layer and block)", "kv_page_bytes"},
      {"KV tensors (layers per group)", "kv_layers_per_group"},
      {"num_blocks (this rank)", "kv_blocks_rank"},
      {"num_gpu_blocks (MIN over ranks)", kKvBlocks},
      {"GPU KV cache size (tokens)", kKvTokens},
      {"maximum concurrency", kMaxConcurrency},
      {"cuda graph memory (free-memory delta of the capture)", kCudaGraphBytes},
  };
  for (const auto& [old_label, id] : kLabels) {
    if (old_label == label) return std::string(id);
  }
  constexpr std::string_view kOldUncertainty = "uncertainty of step ";
  if (label.starts_with(kOldUncertainty)) {
    return step_uncertainty(label.substr(kOldUncertainty.size()));
  }
  // "cuda graph estimate sample (PIECEWISE, size 512)"
  constexpr std::string_view kOldSample = "cuda graph estimate sample (";
  if (label.starts_with(kOldSample) && label.ends_with(")")) {
    std::string rest(label.substr(kOldSample.size(), label.size() - kOldSample.size() - 1));
    std::string id = "cuda_graph_estimate_sample_";
    for (char c : rest) {
      if (c == ',' || c == ' ') {
        if (id.back() != '_') id += '_';
      } else {
        id += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      }
    }
    return id;
  }
  return "";
}

}  // namespace gpumem::fact_id
