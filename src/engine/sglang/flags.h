// SGLang's server flags that gpumem understands, and the typed view of a scenario's flags.
//
// The table lists every flag that changes start-up memory (modelled) plus common flags that
// do not (accepted and ignored, so a real launch command can be pasted). Names and aliases
// are SGLang's own (sglang v0.5.9 python/sglang/srt/server_args.py ServerArgs.add_cli_args).
#ifndef GPUMEM_ENGINE_SGLANG_FLAGS_H_
#define GPUMEM_ENGINE_SGLANG_FLAGS_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/flag_table.h"

namespace gpumem::sglang {

std::span<const FlagSpec> flag_table();

// The flags as the user gave them; std::nullopt where SGLang would compute a default.
struct ServerFlags {
  int tp_size = 1;
  int pp_size = 1;
  int dp_size = 1;
  int ep_size = 1;
  bool enable_dp_attention = false;
  std::optional<double> mem_fraction_static;
  std::int64_t cpu_offload_gb = 0;  // GiB of decoder-layer parameters kept in CPU memory
  std::optional<std::int64_t> max_running_requests;
  std::optional<std::int64_t> max_total_tokens;
  std::optional<std::int64_t> context_length;
  std::optional<std::int64_t> chunked_prefill_size;
  std::int64_t max_prefill_tokens = 16384;  // sglang v0.5.9 server_args.py default
  std::optional<std::int64_t> cuda_graph_max_bs;
  std::optional<std::vector<std::int64_t>> cuda_graph_bs;
  bool disable_cuda_graph = false;
  bool disable_cuda_graph_padding = false;
  bool disable_custom_all_reduce = false;
  std::string kv_cache_dtype = "auto";
  std::string dtype = "auto";
  std::optional<std::int64_t> page_size;
  std::optional<std::string> attention_backend;
  std::optional<std::string> nsa_prefill_backend;  // DeepSeek DSA models only
  std::optional<std::string> nsa_decode_backend;
  std::optional<std::string> speculative_algorithm;
  std::optional<std::string> speculative_draft_model;
  std::optional<std::int64_t> speculative_num_steps;
  std::optional<std::int64_t> speculative_eagle_topk;
  std::optional<std::int64_t> speculative_num_draft_tokens;
  double swa_full_tokens_ratio = 0.8;  // sglang v0.5.9 server_args.py default
  // sglang v0.5.9 server_args.py defaults of the hybrid linear-attention state cache
  std::string mamba_ssm_dtype = "float32";
  double mamba_full_memory_ratio = 0.9;
  std::optional<std::int64_t> max_mamba_cache_size;
  std::string mamba_scheduler_strategy = "auto";  // auto resolves to no_buffer
  bool disable_radix_cache = false;
  bool enable_symm_mem = false;
  bool enable_multimodal = false;
  bool enable_piecewise_cuda_graph = false;
  bool disable_piecewise_cuda_graph = false;
  std::optional<std::int64_t> piecewise_cuda_graph_max_tokens;
  std::optional<std::vector<std::int64_t>> piecewise_cuda_graph_tokens;
  bool enable_flashinfer_allreduce_fusion = false;
  bool enable_deterministic_inference = false;
  std::optional<std::string> quantization;

  FlagValues raw;  // locations, for errors found against the model later
};

// Reads and checks the flags of `engine` (types, choices, ranges, combinations that SGLang
// itself rejects). Errors go to `diags`.
ServerFlags read_server_flags(const ScenarioEngine& engine, Diagnostics& diags);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_FLAGS_H_
