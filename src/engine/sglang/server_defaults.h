// What SGLang fills in for flags the user left out: the GPU-memory size classes, the
// automatic --mem-fraction-static, speculative-decoding defaults, and the CUDA-graph
// batch-size list. Pure functions of the flags, the version and nvidia-smi's memory.total.
#ifndef GPUMEM_ENGINE_SGLANG_SERVER_DEFAULTS_H_
#define GPUMEM_ENGINE_SGLANG_SERVER_DEFAULTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/architecture.h"
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
  // The largest decode batch size the start-up captures before the request pool bounds it:
  // --cuda-graph-max-bs as SGLang resolves it or, where it leaves the flag unset (the fixed
  // list of v0.4.7–v0.5.2 on GPUs of 35 GiB or more), the list's largest size.
  std::int64_t cuda_graph_max_bs = 0;
  // Releases with the fixed capture list filter (and, from PR #6201, extend) the list by
  // --cuda-graph-max-bs at capture time, when it is set.
  std::optional<std::int64_t> capture_max_bs;
  double mem_fraction_static = 0;
  bool mem_fraction_static_is_auto = false;
  double reserved_mib = 0;  // the heuristic's reserve, when auto
  // The automatic fraction's factor for a multimodal model's vision tower (1 otherwise).
  double vision_factor = 1.0;
  std::optional<std::int64_t> max_running_requests;
  SpeculativeSettings speculative;
  bool piecewise_cuda_graph = false;
  std::vector<std::int64_t> cuda_graph_bs;  // before the capture-time filter
};

// Whether SGLang serves `architecture` as multimodal (sglang v0.5.9 configs/model_config.py
// ModelConfig.__init__): --enable-multimodal, else every multimodal architecture but those of
// mm_disabled_models (Gemma 3's and Llama 4's wrappers).
bool serves_multimodal(const ServerFlags& flags, const std::string& architecture);

// gpu_mem_mib: memory.total of the smallest GPU as nvidia-smi prints it, in MiB
// (sglang v0.5.9 utils/common.py get_nvgpu_memory_capacity). `uses_mla` and
// `architecture` (HF class name) select model-dependent defaults; a multimodal model's
// `vision` tower shrinks the automatic fraction when it is served multimodal.
ResolvedArgs resolve_server_args(const ServerFlags& flags, const Version& version,
                                 double gpu_mem_mib, bool uses_mla, const std::string& architecture,
                                 const VisionTower& vision = {});

// sglang v0.5.9 server_args.py _generate_cuda_graph_batch_sizes (v0.5.18 appends max_bs
// when the ladder skips it: `appends_max_bs`).
std::vector<std::int64_t> default_cuda_graph_bs(std::int64_t max_bs, bool speculative,
                                                bool disable_padding, bool appends_max_bs = false);

// sglang v0.4.6.post3 cuda_graph_runner.py get_batch_sizes_to_capture: the fixed list of
// v0.4.6–v0.5.2 before any filter, extended on GPUs above 96 GiB and 180,000 MiB (before PR
// #6201, `pr6201` false: above 81,920 MiB, to 256 only, and only with one DP rank).
std::vector<std::int64_t> fixed_cuda_graph_bs(double gpu_mem_mib, bool speculative,
                                              bool disable_padding, bool pr6201, int dp_size = 1);

// sglang v0.4.6.post3 cuda_graph_runner.py get_batch_sizes_to_capture, the capture-time part
// for the fixed list: the request pool's size joins a list reaching past it; --cuda-graph-max-bs
// (`max_bs`, when set) drops larger sizes and, from PR #6201, extends a list ending below it
// in steps of 16; sizes above the pool go; sorted, without repeats.
std::vector<std::int64_t> fixed_list_to_capture(std::vector<std::int64_t> bs,
                                                std::optional<std::int64_t> max_bs, bool pr6201,
                                                std::int64_t req_pool_rows);

// sglang v0.5.9 server_args.py piecewise token list, capped at `max_tokens`.
std::vector<std::int64_t> piecewise_cuda_graph_tokens(std::int64_t max_tokens);

// Python's round(x, 3): the double nearest to x rounded to 3 decimals, halves to even on
// the exact binary value.
double python_round3(double x);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_SERVER_DEFAULTS_H_
