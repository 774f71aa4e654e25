// What SGLang fills in for flags the user left out: the GPU-memory size classes, the
// automatic --mem-fraction-static, speculative-decoding defaults, and the CUDA-graph
// batch-size list. Pure functions of the flags, the version and nvidia-smi's memory.total.
#ifndef GPUMEM_ENGINE_SGLANG_SERVER_DEFAULTS_H_
#define GPUMEM_ENGINE_SGLANG_SERVER_DEFAULTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/sglang/flags.h"
#include "engine/sglang/version.h"

namespace gpumem::sglang {

struct SpeculativeSettings {
  std::string algorithm;  // empty: no speculative decoding
  std::int64_t num_steps = 0;
  std::int64_t eagle_topk = 0;
  std::int64_t num_draft_tokens = 0;
};

struct ResolvedArgs {
  std::int64_t chunked_prefill_size = 0;
  std::int64_t cuda_graph_max_bs = 0;
  double mem_fraction_static = 0;
  bool mem_fraction_static_is_auto = false;
  double reserved_mib = 0;  // the heuristic's reserve, when auto
  std::optional<std::int64_t> max_running_requests;
  SpeculativeSettings speculative;
  bool piecewise_cuda_graph = false;
  std::vector<std::int64_t> cuda_graph_bs;  // before the capture-time filter
};

// gpu_mem_mib: memory.total of the smallest GPU as nvidia-smi prints it, in MiB
// (sglang v0.5.9 utils/common.py get_nvgpu_memory_capacity). `uses_mla` and
// `architecture` (HF class name) select model-dependent defaults.
ResolvedArgs resolve_server_args(const ServerFlags& flags, const Version& version,
                                 double gpu_mem_mib, bool uses_mla,
                                 const std::string& architecture);

// sglang v0.5.9 server_args.py _generate_cuda_graph_batch_sizes.
std::vector<std::int64_t> default_cuda_graph_bs(std::int64_t max_bs, bool speculative,
                                                bool disable_padding);

// sglang v0.5.9 server_args.py piecewise token list, capped at `max_tokens`.
std::vector<std::int64_t> piecewise_cuda_graph_tokens(std::int64_t max_tokens);

// Python's round(x, 3): the double nearest to x rounded to 3 decimals, halves to even on
// the exact binary value.
double python_round3(double x);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_SERVER_DEFAULTS_H_
