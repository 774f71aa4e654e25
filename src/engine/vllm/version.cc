#include "engine/vllm/version.h"

#include <charconv>

namespace gpumem::vllm {

std::string Version::to_string() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  if (hotfix != 0) s += "." + std::to_string(hotfix);
  return s;
}

std::optional<Version> parse_version(std::string_view text) {
  if (!text.empty() && text.front() == 'v') text.remove_prefix(1);
  if (size_t post = text.find(".post"); post != std::string_view::npos) {
    text = text.substr(0, post);
  }
  Version v;
  int* parts[4] = {&v.major, &v.minor, &v.patch, &v.hotfix};
  for (int i = 0; i < 4; ++i) {
    const char* begin = text.data();
    auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), *parts[i]);
    if (ec != std::errc() || ptr == begin) return std::nullopt;
    text.remove_prefix(static_cast<size_t>(ptr - begin));
    if (text.empty() && i >= 2) return v;
    if (i == 3 || text.empty() || text.front() != '.') return std::nullopt;
    text.remove_prefix(1);
  }
  return std::nullopt;
}

bool is_modelled(const Version& v) { return v >= kOldestModelled && v < kFirstUnmodelled; }

std::string modelled_range() {
  return kOldestModelled.to_string() + " to " + std::to_string(kFirstUnmodelled.major) + "." +
         std::to_string(kFirstUnmodelled.minor - 1) + ".x";
}

VersionRules rules_for(const Version& v) {
  VersionRules r;
  const bool v0_21 = v >= Version{0, 21, 0, 0};
  r.default_gpu_memory_utilization = v0_21 ? 0.92 : 0.9;
  r.cudagraph_estimate_exists = v >= Version{0, 17, 0, 0};
  r.cudagraph_estimate_default_on = v0_21;
  r.snapshot_after_distributed = v >= Version{0, 11, 0, 0};
  r.forces_nccl_cumem_off = v < Version{0, 10, 2, 0};
  r.kv_cache_memory_flag = v >= Version{0, 10, 2, 0};
  r.symm_mem_default_on = v >= Version{0, 11, 0, 0};
  r.full_and_piecewise_default = v >= Version{0, 11, 0, 0};
  r.optimization_levels = v >= Version{0, 12, 0, 0};
  r.two_step_capture_sizes = v >= Version{0, 11, 1, 0};
  r.cuda_graph_sizes_flag = v < Version{0, 13, 0, 0};
  r.max_model_len_auto = v >= Version{0, 12, 0, 0};
  r.memory_utils_refactor = v >= Version{0, 14, 0, 0};
  r.loading_log_says_memory = v >= Version{0, 11, 0, 0};
  r.token_log_from_concurrency = v0_21;
  r.capture_sizes_include_batched_tokens = v0_21;
  r.hybrid_prefix_caching_align = v >= Version{0, 14, 0, 0};
  r.hybrid_blackwell_alignment = v >= Version{0, 11, 1, 0};
  r.language_model_only_flag = v >= Version{0, 16, 0, 0};
  r.nvfp4_swizzled_scales_replace = v >= Version{0, 10, 2, 0};
  r.longrope_defaults_to_original_length = v >= Version{0, 11, 1, 0};
  r.nemotron_ssm_dtype_from_config = v >= Version{0, 13, 0, 0};
  r.mamba_blocks_bound_max_num_seqs = v >= Version{0, 19, 0, 0};
  r.online_fp8_per_module = v >= Version{0, 15, 0, 0};
  r.uniform_type_kv_groups = v >= Version{0, 11, 0, 0};
  r.dsa_supported = v >= Version{0, 11, 0, 0};
  r.auto_kv_from_modelopt_checkpoint = v >= Version{0, 14, 0, 0};
  r.dsa_auto_kv_fp8 = v < Version{0, 11, 1, 0};
  r.dsa_persistent_workspace = v >= Version{0, 13, 0, 0};
  r.dsa_profiles_logits_budget = v >= Version{0, 19, 0, 0};
  r.v2_runner_default = v >= Version{0, 29, 0, 0}   ? V2RunnerDefault::kEverySupportedModel
                        : v >= Version{0, 25, 0, 0} ? V2RunnerDefault::kDense
                        : v >= Version{0, 24, 0, 0} ? V2RunnerDefault::kListed
                        : v >= Version{0, 23, 0, 0} ? V2RunnerDefault::kListedDense
                        : v >= Version{0, 22, 0, 0} ? V2RunnerDefault::kQwen3Dense
                                                    : V2RunnerDefault::kNever;
  r.v2_estimates_cudagraphs = v >= Version{0, 29, 0, 0};
  return r;
}

}  // namespace gpumem::vllm
