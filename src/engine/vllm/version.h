// vLLM release versions and the start-up rules that changed between them (V1 engine, CUDA).
//
// gpumem models v0.10.1 through v0.30.x. Rules that differ are data here, keyed by version,
// so the engine model has one code path with small branches instead of copies per release.
// The V1 runner's rules come from the source the research read (vllm main after v0.21.0,
// research/vllm-trtllm-memory.md §0); from v0.22.0 Model Runner V2 runs some models and from
// v0.29.0 every model it supports (engine/vllm/model_runner.h): the same worker, budget and
// KV sizing, with its own CUDA-graph estimate.
// Where a PR's merge date is known but not the first release that carried it, the threshold
// is marked UNCONFIRMED and chosen as the next release after the merge.
#ifndef GPUMEM_ENGINE_VLLM_VERSION_H_
#define GPUMEM_ENGINE_VLLM_VERSION_H_

#include <optional>
#include <string>
#include <string_view>

namespace gpumem::vllm {

struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  int hotfix = 0;  // vLLM's fourth component (0.10.1.1)
  auto operator<=>(const Version&) const = default;
  std::string to_string() const;
};

// "0.10.2", "v0.10.2", "0.10.1.1"; a ".postN" suffix has the rules of its release.
std::optional<Version> parse_version(std::string_view text);

inline constexpr Version kOldestModelled{0, 10, 1, 0};
inline constexpr Version kFirstUnmodelled{0, 31, 0, 0};
bool is_modelled(const Version& v);
// "0.10.1 to 0.30.x", for error messages.
std::string modelled_range();

// The releases at which a memory rule of the vLLM model changes (a `Version{...}` comparison
// in engine/vllm/), oldest first, ending with the newest modelled: a release between two of
// them runs the rules of the earlier. Explain picks a logged start-up's release among them.
inline constexpr const char* kRuleChanges[] = {"0.10.1", "0.10.2", "0.11.0", "0.11.1", "0.12.0",
                                               "0.13.0", "0.14.0", "0.15.0", "0.16.0", "0.17.0",
                                               "0.19.0", "0.20.0", "0.21.0", "0.22.0", "0.23.0",
                                               "0.24.0", "0.25.0", "0.26.0", "0.29.0", "0.30.0"};

// vllm config/vllm.py use_v2_model_runner with the variable unset, by release (release notes
// of v0.22.0, v0.23.0, v0.25.0; PR #53183 for v0.29.0).
enum class V2RunnerDefault {
  kNever,                // before v0.22.0: V2 only when asked for
  kQwen3Dense,           // v0.22: Qwen3ForCausalLM, dense and not quantized
  kListedDense,          // v0.23: listed architectures, dense and not quantized
  kListed,               // v0.24: listed architectures, MoE and quantized ones too
  kDense,                // v0.25 to v0.28: every dense model, and listed MoE ones
  kEverySupportedModel,  // v0.29.0 on: every model but the fallbacks
};

// The version-dependent rules the model consults.
struct VersionRules {
  // CacheConfig.gpu_memory_utilization default: 0.9, 0.92 from PR #38284 (v0.21.0).
  double default_gpu_memory_utilization;
  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS exists (PR #30515, merged 2026-03-07; v0.17.0
  // UNCONFIRMED) and defaults to 1 (PR #38284, "default since v0.21.0").
  bool cudagraph_estimate_exists;
  bool cudagraph_estimate_default_on;
  // The init snapshot is taken after init_worker_distributed_environment (PR #25359, merged
  // 2025-09-23, v0.11.0); before, NCCL and custom all-reduce memory is in non-torch memory.
  bool snapshot_after_distributed;
  // vllm/env_override.py set NCCL_CUMEM_ENABLE=0 unless the environment set it, until
  // PR #24141 (merged 2025-09-03, in the v0.10.2 release).
  bool forces_nccl_cumem_off;
  // --kv-cache-memory (PR #21489, v0.10.2: its suggestion line is in v0.10.2 logs).
  bool kv_cache_memory_flag;
  // VLLM_ALLREDUCE_USE_SYMM_MEM default: off in v0.10.2 (PR #24696), on for TP groups from
  // PR #25070 (merged 2025-09-17, v0.11.0).
  bool symm_mem_default_on;
  // cudagraph_mode FULL_AND_PIECEWISE by default (v0.11.0 release notes); PIECEWISE before.
  bool full_and_piecewise_default;
  // -O<n> is the optimization level (config/vllm.py OptimizationLevel, PR #26847, v0.12.0):
  // O0 no compilation and no CUDA graphs, O1 PIECEWISE, O2 (the default) and O3
  // FULL_AND_PIECEWISE. Before, it was CompilationConfig's level, and the V1 runner captured
  // graphs only at level 3 (PR #19340, v0.10.1).
  bool optimization_levels;
  // PR #26016 (v0.11.1): --max-cudagraph-capture-size / --cudagraph-capture-sizes, capture
  // sizes step 8 below 256 and 16 above; the default maximum counts speculative tokens.
  // Before: --cuda-graph-sizes, [1, 2, 4] + multiples of 8 up to min(2 max_num_seqs, 512).
  bool two_step_capture_sizes;
  // --cuda-graph-sizes is taken: PR #26016 deprecated it "to be removed in v0.13.0"; absent by
  // v0.19 (a parser read), the release that removed it UNCONFIRMED, taken as v0.13.0.
  bool cuda_graph_sizes_flag;
  // --max-model-len auto (PR #29431, opened 2025-11-25; v0.12.0 UNCONFIRMED).
  bool max_model_len_auto;
  // request_memory() (PR #30868, merged 2025-12-17; v0.14.0 UNCONFIRMED): budget =
  // ceil(total x util), the budget error names the device, and memory lines print
  // format_gib (round to 2 decimals); before, total x util as a float and "%.2f"/"%.4f".
  bool memory_utils_refactor;
  // "Model loading took %s GiB memory and ..." wording: "memory" is absent in v0.10.2 and
  // present in v0.13.0 logs (v0.11.0 UNCONFIRMED).
  bool loading_log_says_memory;
  // "GPU KV cache size" = int(max_concurrency x max_model_len) (PR #41069, merged
  // 2026-04-28, v0.21.0); before, num_blocks // len(groups) x block_size.
  bool token_log_from_concurrency;
  // max_num_batched_tokens joins the capture sizes when it is at most the largest size
  // (read in the v0.21+ source; earlier releases UNCONFIRMED, taken as v0.21.0).
  bool capture_sizes_include_batched_tokens;
  // Hybrid linear-attention models asked for prefix caching keep it on in mamba_cache_mode
  // "align", two state pages per request (config.py MambaModelConfig, v0.14.0 UNCONFIRMED);
  // before, prefix caching was turned off for them and a request held one state page.
  bool hybrid_prefix_caching_align;
  // The hybrid block alignment is 32 tokens on Blackwell with 256-wide heads under FlashInfer
  // (config.py HybridAttentionMambaModelConfig, flashinfer#1993; v0.11.1 UNCONFIRMED), else 16.
  bool hybrid_blackwell_alignment;
  // vllm PR #23379 (merged 2025-08-21, v0.10.2): NVFP4's swizzled block scales replace the
  // loaded ones instead of being kept beside them.
  bool nvfp4_swizzled_scales_replace;
  // --language-model-only (PR #34120, merged 2026-02-09; v0.16.0 UNCONFIRMED).
  bool language_model_only_flag;
  // vllm PR #27431 (merged late October 2025; v0.11.1 UNCONFIRMED): a LongRoPE model without
  // --max-model-len serves original_max_position_embeddings (short factors), not
  // max_position_embeddings; a longer --max-model-len selects the long factors.
  bool longrope_defaults_to_original_length;
  // vllm PR #29978 (opened 2025-12-03; v0.13.0 UNCONFIRMED): NemotronHForCausalLMConfig turns an
  // "auto" --mamba-ssm-cache-dtype into the config's mamba_ssm_cache_dtype, else float16; before,
  // "auto" followed --mamba-cache-dtype (the model dtype).
  bool nemotron_ssm_dtype_from_config;
  // vllm PR #38270 (merged 2026-03-31; v0.19.0 UNCONFIRMED): with full CUDA graphs a model with
  // Mamba state stops at start-up when max_num_seqs exceeds its KV-cache blocks (each decoding
  // sequence holds one state block).
  bool mamba_blocks_bound_max_num_seqs;
  // --quantization fp8 on a model-dtype checkpoint quantizes each linear as soon as it is
  // loaded (PR #31914, merged January 2026; 0.15.0 UNCONFIRMED), not after the whole model.
  bool online_fp8_per_module;
  // v1/core/kv_cache_utils.py get_kv_cache_groups: full-attention and MLA layers of one block
  // size with unequal pages form one group (UniformTypeKVCacheSpecs, PR #25101, v0.11.0).
  bool uniform_type_kv_groups;
  // DeepSeek Sparse Attention (models/deepseek_v2.py Indexer, DeepseekV32ForCausalLM): from
  // v0.11.0 (PR #25896); --kv-cache-dtype auto keeps DeepSeek-V3.2's latent in fp8_ds_mla
  // (PR #25988) until PR #27121 (merged 2025-10-17, v0.11.1) makes it the model dtype.
  bool dsa_supported;
  // --kv-cache-dtype auto takes a ModelOpt checkpoint's kv_cache_quant_algo FP8 (or its
  // config.json form kv_cache_scheme) as fp8_e4m3 (engine/arg_utils.py, utils/torch_utils.py
  // resolve_kv_cache_dtype_string; PR #30785, merged 2025-12-16: v0.14.0, v0.13.0
  // UNCONFIRMED). Other formats' KV scales (compressed-tensors kv_cache_scheme) are not read
  // that way: auto stays the model dtype.
  bool auto_kv_from_modelopt_checkpoint;
  bool dsa_auto_kv_fp8;
  // The workspace manager (PR #27532, merged November 2025; v0.13.0 UNCONFIRMED): the sparse
  // indexer's buffers become one workspace that the profile's first forward allocates and
  // that stays; before it they were freed after each forward.
  bool dsa_persistent_workspace;
  // PR #36178 (reviewed March 2026; v0.19.0 UNCONFIRMED): the profile run holds the indexer's
  // logits budget, VLLM_SPARSE_INDEXER_MAX_LOGITS_MB (512 MiB), for a moment.
  bool dsa_profiles_logits_budget;
  // Which models Model Runner V2 runs when VLLM_USE_V2_MODEL_RUNNER is unset
  // (engine/vllm/model_runner.h).
  V2RunnerDefault v2_runner_default;
  // Model Runner V2's profile_cudagraph_memory returns 0 until PR #53306 ("Reserve CUDA graph
  // memory", merged late August 2026, first in v0.29.0 by its merge date, UNCONFIRMED).
  bool v2_estimates_cudagraphs;
};

VersionRules rules_for(const Version& v);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_VERSION_H_
