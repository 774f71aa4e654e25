// vLLM's engine flags that gpumem understands, and the typed view of a scenario's flags.
//
// The table lists every flag that changes start-up memory (modelled) plus common flags that
// do not (accepted and ignored, so a real `vllm serve` command can be pasted). Names and
// aliases are vLLM's own (vllm v0.10.2 … v0.21 engine/arg_utils.py EngineArgs.add_cli_args);
// like vLLM's FlexibleArgumentParser, underscores in a flag name read as dashes
// (--max_model_len is --max-model-len). Flags that take JSON (--compilation-config,
// --speculative-config) are read for the keys that change memory; a key vLLM knows but
// gpumem does not model is accepted and ignored, a key vLLM does not know is an error.
#ifndef GPUMEM_ENGINE_VLLM_FLAGS_H_
#define GPUMEM_ENGINE_VLLM_FLAGS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/flag_table.h"
#include "engine/vllm/version.h"

namespace gpumem::vllm {

std::span<const FlagSpec> flag_table();

// vllm utils/argparse_utils.py FlexibleArgumentParser: "--max_model_len" is "--max-model-len".
std::string dashed_flag(std::string_view flag);

// vllm config/compilation.py CUDAGraphMode.
enum class CudagraphMode { kNone, kPiecewise, kFull, kFullDecodeOnly, kFullAndPiecewise };
std::string_view cudagraph_mode_name(CudagraphMode m);

// --speculative-config, the keys that change memory.
struct SpeculativeFlags {
  // ngram, eagle3 or mtp (the per-model MTP names, deepseek_mtp and the like, read as mtp)
  std::string method;
  std::string method_as_written;
  std::optional<std::string> model;
  std::int64_t num_speculative_tokens = 0;
};

// The flags as the user gave them; std::nullopt where vLLM computes a default.
struct EngineFlags {
  // Started through the Python LLM class (the scenario's `entry: offline`), not `vllm serve`.
  bool offline = false;
  int tp_size = 1;
  int pp_size = 1;
  int dp_size = 1;  // --data-parallel-size: engine cores, each a TP x PP world of its own
  std::optional<double> gpu_memory_utilization;
  std::optional<std::int64_t> max_model_len;
  // --max-model-len auto (or -1): the model's own length, cut at KV-cache sizing to the
  // longest one request the cache holds (kv_cache_utils.py _auto_fit_max_model_len).
  bool max_model_len_auto = false;
  std::optional<std::int64_t> max_num_seqs;
  std::optional<std::int64_t> max_num_batched_tokens;
  std::string kv_cache_dtype = "auto";
  std::optional<std::int64_t> block_size;
  bool enforce_eager = false;
  bool enable_prefix_caching_given = false;  // --enable-prefix-caching set on the command line
  // --language-model-only, or --limit-mm-per-prompt 0 for images and videos: the language
  // model is served alone.
  bool multimodal_off = false;
  bool language_model_only = false;  // --language-model-only itself
  // --limit-mm-per-prompt with 0 images: an image-only tower (Pixtral) is not built.
  bool images_off = false;
  // --limit-mm-per-prompt's counts; nullopt where it names no limit (vLLM's default, 999).
  std::optional<std::int64_t> image_limit;
  std::optional<std::int64_t> video_limit;
  std::optional<std::int64_t> vision_chunk_limit;  // Kimi-K2.5's one modality
  std::string mamba_cache_dtype = "auto";
  std::string mamba_ssm_cache_dtype = "auto";
  std::optional<std::int64_t> kv_cache_memory_bytes;
  double cpu_offload_gb = 0;  // GiB of decoder-layer weights each GPU keeps in CPU memory
  std::optional<std::int64_t> num_gpu_blocks_override;
  std::optional<std::vector<std::int64_t>> cuda_graph_sizes;         // before v0.11.1
  std::optional<std::vector<std::int64_t>> cudagraph_capture_sizes;  // v0.11.1 on
  std::optional<std::int64_t> max_cudagraph_capture_size;            // v0.11.1 on
  std::optional<CudagraphMode> cudagraph_mode;
  std::optional<int> optimization_level;  // -O<n> or --optimization-level, 0 to 3
  // --compilation-config's mode (level before v0.12.0), 0 to 3, and custom_ops as given.
  std::optional<int> compilation_mode;
  std::vector<std::string> custom_ops;
  bool disable_custom_all_reduce = false;
  std::optional<SpeculativeFlags> speculative;
  std::string dtype = "auto";
  std::optional<std::string> quantization;
  bool enable_expert_parallel = false;

  FlagValues raw;  // locations, for errors found against the model later
};

// Reads and checks the flags of `engine` (types, choices, ranges, flags the version does
// not have). Errors go to `diags`.
EngineFlags read_engine_flags(const ScenarioEngine& engine, const VersionRules& rules,
                              Diagnostics& diags);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_FLAGS_H_
