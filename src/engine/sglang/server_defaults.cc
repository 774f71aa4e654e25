#include "engine/sglang/server_defaults.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

namespace gpumem::sglang {

double python_round3(double x) {
  // glibc prints the exact binary value correctly rounded, as CPython's round() computes it.
  const std::string text = fmt::format("{:.3f}", x);
  return std::strtod(text.c_str(), nullptr);
}

std::vector<std::int64_t> default_cuda_graph_bs(std::int64_t max_bs, bool speculative,
                                                bool disable_padding, bool appends_max_bs) {
  std::vector<std::int64_t> bs;
  auto range = [&](std::int64_t from, std::int64_t to_exclusive, std::int64_t step) {
    for (std::int64_t b = from; b < to_exclusive; b += step) bs.push_back(b);
  };
  if (disable_padding) {
    range(1, max_bs + 1, 1);
  } else if (!speculative) {
    bs = {1, 2, 4, 8, 12};
    range(16, 257, 8);
    range(272, 512, 16);
    range(512, max_bs + 1, 32);
  } else {
    range(1, 9, 1);
    range(10, 33, 2);
    range(40, 65, 4);
    range(72, 257, 8);
    range(272, max_bs + 1, 16);
  }
  std::erase_if(bs, [&](std::int64_t b) { return b > max_bs; });
  // sglang v0.5.18 cuda_graph_hook.py generate_decode_cuda_graph_batch_sizes
  if (appends_max_bs && std::find(bs.begin(), bs.end(), max_bs) == bs.end()) bs.push_back(max_bs);
  return bs;
}

std::vector<std::int64_t> fixed_cuda_graph_bs(double gpu_mem_mib, bool speculative,
                                              bool disable_padding, bool pr6201, int dp_size) {
  std::vector<std::int64_t> bs;
  auto range = [&](std::int64_t from, std::int64_t to_exclusive, std::int64_t step) {
    for (std::int64_t b = from; b < to_exclusive; b += step) bs.push_back(b);
  };
  if (disable_padding && !speculative) {
    range(1, 33, 1);
    range(48, 161, 16);
  } else if (!speculative) {
    bs = {1, 2, 4, 8};
    range(16, 161, 8);
  } else if (pr6201) {
    range(1, 9, 1);
    range(10, 33, 2);
    range(40, 64, 8);
    range(80, 161, 16);
  } else {
    range(1, 9, 1);
    range(10, 33, 2);
    range(40, 161, 16);
  }
  if (pr6201) {
    if (gpu_mem_mib > 96.0 * 1024) range(160, 257, 8);
    if (gpu_mem_mib > 180.0 * 1000) range(256, 513, 16);
  } else if (gpu_mem_mib > 81920 && dp_size == 1) {
    // sglang v0.4.6 cuda_graph_runner.py get_batch_sizes_to_capture (a copy vendored in
    // Akemiiii/prism-mlsys-ae at b07a573): PR #5634 kept DP ranks at 160.
    range(160, 257, 8);
  }
  return bs;
}

std::vector<std::int64_t> fixed_list_to_capture(std::vector<std::int64_t> bs,
                                                std::optional<std::int64_t> max_bs, bool pr6201,
                                                std::int64_t req_pool_rows) {
  if (!bs.empty() && *std::max_element(bs.begin(), bs.end()) > req_pool_rows) {
    bs.push_back(req_pool_rows);
  }
  if (max_bs) {
    std::erase_if(bs, [&](std::int64_t b) { return b > *max_bs; });
    if (pr6201 && !bs.empty()) {
      // Sizes above the pool are dropped below: the extension stops at it.
      const std::int64_t top = *std::max_element(bs.begin(), bs.end());
      const std::int64_t end = std::min(*max_bs, req_pool_rows);
      for (std::int64_t b = top; top < *max_bs && b <= end; b += 16) bs.push_back(b);
    }
  }
  std::erase_if(bs, [&](std::int64_t b) { return b > req_pool_rows; });
  std::sort(bs.begin(), bs.end());
  bs.erase(std::unique(bs.begin(), bs.end()), bs.end());
  return bs;
}

std::vector<std::int64_t> piecewise_cuda_graph_tokens(std::int64_t max_tokens) {
  std::vector<std::int64_t> t;
  auto range = [&](std::int64_t from, std::int64_t to_inclusive, std::int64_t step) {
    for (std::int64_t v = from; v <= to_inclusive; v += step) t.push_back(v);
  };
  range(4, 32, 4);
  range(48, 256, 16);
  range(288, 512, 32);
  range(576, 1024, 64);
  range(1280, 4096, 256);
  range(4608, max_tokens, 512);
  std::erase_if(t, [&](std::int64_t v) { return v > max_tokens; });
  return t;
}

namespace {

struct SizeClass {
  double below_mib;  // applies when gpu_mem < below_mib
  std::int64_t chunked_prefill_size;
  std::int64_t graph_bs_small_tp;  // tp < 4
  std::int64_t graph_bs_large_tp;  // tp >= 4
};

// sglang v0.5.9 server_args.py _handle_gpu_memory_settings: size classes by memory.total.
constexpr SizeClass kSizeClasses[] = {
    {20 * 1024, 2048, 8, 8},       // T4, 4080
    {35 * 1024, 2048, 24, 80},     // A10, 4090, 5090
    {60 * 1024, 4096, 32, 160},    // A100-40G, L40
    {90 * 1024, 8192, 256, 512},   // H100, A100-80G
    {160 * 1024, 8192, 256, 512},  // H20, H200, 96 GB parts
};
constexpr SizeClass kLargest = {0, 16384, 512, 512};  // B200, MI300
// sglang v0.5.19 arg_groups/memory_hook.py handle_gpu_memory_settings (PR #37898).
constexpr SizeClass kRaisedSmall = {35 * 1024, 4096, 48, 160};  // A10, 4090, 5090

SizeClass size_class_of(double gpu_mem_mib, const VersionRules& rules) {
  for (const SizeClass& c : kSizeClasses) {
    if (gpu_mem_mib < c.below_mib) {
      if (rules.small_gpu_class_raised && c.below_mib == kRaisedSmall.below_mib) {
        return kRaisedSmall;
      }
      return c;
    }
  }
  return kLargest;
}

// sglang v0.4.6 server_args.py __post_init__: chunked prefill and --cuda-graph-max-bs by a
// 25,000 MiB threshold (8 or 80 below it, by TP; above it unset, so the capture list alone
// decides: PR #5604 dropped the cap of 160).
void parallel_size_defaults(const ServerFlags& flags, double gpu_mem_mib, ResolvedArgs& r) {
  const bool small = gpu_mem_mib < 25000;
  r.chunked_prefill_size = flags.chunked_prefill_size.value_or(small ? 2048 : 8192);
  r.capture_max_bs = flags.cuda_graph_max_bs;
  if (!r.capture_max_bs && small) r.capture_max_bs = flags.tp_size < 4 ? 8 : 80;
}

// sglang v0.4.7 server_args.py __post_init__ (PR #7054): chunked prefill by class;
// --cuda-graph-max-bs only below 35 GiB (8 or 80 by TP), else left to the capture list.
void reserve_by_class_defaults(const ServerFlags& flags, double gpu_mem_mib, ResolvedArgs& r) {
  const std::int64_t chunk = gpu_mem_mib < 35 * 1024    ? 2048
                             : gpu_mem_mib < 160 * 1024 ? 8192
                                                        : 16384;
  r.chunked_prefill_size = flags.chunked_prefill_size.value_or(chunk);
  r.capture_max_bs = flags.cuda_graph_max_bs;
  if (!r.capture_max_bs && gpu_mem_mib < 35 * 1024) r.capture_max_bs = flags.tp_size < 4 ? 8 : 80;
}

// sglang v0.4.6 server_args.py __post_init__: the fraction by TP x PP up to 81,920 MiB (nvidia-smi
// MiB: 80 GiB); above it, 13 GiB left (v0.4.6, a copy vendored in Akemiiii/prism-mlsys-ae at
// b07a573) or, from PR #5893 (a v0.4.6.post2-era copy vendored in Swapnil-Gandhi/PACE at
// e363966), 0.88 raised above 96 GiB by 48 GiB of (1 - 0.88) but leaving at least 18 GiB.
double fraction_by_parallel_size(const ServerFlags& flags, const VersionRules& rules,
                                 double gpu_mem_mib) {
  const int p = flags.tp_size * flags.pp_size;
  if (gpu_mem_mib <= 81920) {
    return p >= 16 ? 0.79 : p >= 8 ? 0.81 : p >= 4 ? 0.85 : p >= 2 ? 0.87 : 0.88;
  }
  if (!rules.large_gpu_fraction_pr5893) return (gpu_mem_mib - 13 * 1024) / gpu_mem_mib;
  double fraction = 0.88;
  if (gpu_mem_mib > 96 * 1024) {
    fraction = std::min(fraction + 48 * 1024 * (1 - fraction) / gpu_mem_mib,
                        (gpu_mem_mib - 18 * 1024) / gpu_mem_mib);
  }
  return fraction;
}

// sglang v0.4.7 server_args.py __post_init__ (PR #7054): the reserve by size class, plus the
// draft's and DP attention's.
double reserve_by_class(const ServerFlags& flags, const SpeculativeSettings& spec,
                        const VersionRules& rules, double gpu_mem_mib) {
  const double p = static_cast<double>(flags.tp_size * flags.pp_size);
  double reserved = 0;
  if (gpu_mem_mib < 35 * 1024) {
    reserved = (2.8 + p / 10) * 1024;
  } else if (gpu_mem_mib < 90 * 1024) {
    reserved = (9.5 + p / 2) * 1024;
  } else if (gpu_mem_mib < 160 * 1024) {
    reserved = (12 + p / 2) * 1024;
  } else {
    reserved = 32 * 1024;
  }
  if (spec.algorithm == "STANDALONE") {
    reserved += 6 * 1024;
  } else if (!spec.algorithm.empty()) {
    reserved += rules.speculative_reserve_mib;
  }
  if (flags.enable_dp_attention) reserved += 4 * 1024;
  return reserved;
}

// sglang v0.5.9 server_args.py adjust_mem_fraction_for_vlm (PR #6881): the automatic fraction
// of a multimodal model shrinks with its ViT's layers x hidden^2 against ViT-L/14's 24 x 1024^2:
// 0.95 x clamp(1 - 0.1 x (ratio - 1), 0.8, 1.05).
double vision_mem_fraction_factor(const VisionTower& v) {
  // The rule reads getattr(vision_config, "num_hidden_layers", 24): the Qwen ViTs' configs name
  // their depth "depth", so 24 is used (a real Qwen2.5-VL-7B log prints 0.851 x 0.8965625 =
  // 0.7629746875, tests/data/engine-logs/sglang-b200-x1-qwen2.5-vl-7b-piecewise-cudagraph.log).
  // Kimi-K2.5's MoonViT reads SGLang's own KimiK25VisionConfig (configs/kimi_k25.py), whose
  // num_hidden_layers and hidden_size are the checkpoint's vt_* values (27, 1152).
  // Qwen2-VL's vision_config.hidden_size is the merger's output, the language model's width
  // (its tower's width is embed_dim): 3,584 for the 7B gives the floor, 0.95 x 0.8 = 0.76.
  const std::int64_t layers =
      v.kind == VisionKind::kSiglip || v.kind == VisionKind::kMoonVit ? v.num_hidden_layers : 24;
  const std::int64_t hidden = v.kind == VisionKind::kQwen2Vit ? v.out_hidden_size : v.hidden_size;
  const double score =
      static_cast<double>(layers) * static_cast<double>(hidden) * static_cast<double>(hidden);
  const double ratio = score / (24.0 * 1024.0 * 1024.0);
  return 0.95 * std::clamp(1.0 - 0.1 * (ratio - 1.0), 0.8, 1.05);
}

}  // namespace

bool serves_multimodal(const ServerFlags& flags, const std::string& architecture) {
  if (flags.enable_multimodal) return true;
  return architecture.ends_with("ForConditionalGeneration") &&
         architecture != "Gemma3ForConditionalGeneration" &&
         architecture != "Llama4ForConditionalGeneration";
}

ResolvedArgs resolve_server_args(const ServerFlags& flags, const Version& version,
                                 double gpu_mem_mib, bool uses_mla, const std::string& architecture,
                                 const VisionTower& vision) {
  const VersionRules rules = rules_for(version);
  ResolvedArgs r;
  if (rules.mem_fraction == MemFractionRule::kByParallelSize) {
    parallel_size_defaults(flags, gpu_mem_mib, r);
  } else if (rules.mem_fraction == MemFractionRule::kReserveByClass) {
    reserve_by_class_defaults(flags, gpu_mem_mib, r);
  } else {
    const SizeClass size_class = size_class_of(gpu_mem_mib, rules);
    r.chunked_prefill_size = flags.chunked_prefill_size.value_or(size_class.chunked_prefill_size);
    if (flags.cuda_graph_bs && !flags.cuda_graph_bs->empty()) {
      // sglang v0.5.9 server_args.py: an explicit list decides the maximum.
      r.cuda_graph_max_bs =
          *std::max_element(flags.cuda_graph_bs->begin(), flags.cuda_graph_bs->end());
    } else {
      r.cuda_graph_max_bs = flags.cuda_graph_max_bs.value_or(
          flags.tp_size < 4 ? size_class.graph_bs_small_tp : size_class.graph_bs_large_tp);
    }
  }

  // sglang v0.5.9 server_args.py _handle_speculative_decoding and auto_choose_speculative_params.
  if (flags.speculative_algorithm) {
    SpeculativeSettings& s = r.speculative;
    // NEXTN is EAGLE with the model's MTP layer as the draft (plan.cc resolve_draft).
    s.algorithm = *flags.speculative_algorithm == "NEXTN" ? "EAGLE" : *flags.speculative_algorithm;
    // DeepSeek-V3.2 and GLM-4.5 joined PR #9470's list with their NextN drafts, and GLM-5
    // (from 0.5.9) gets the same from that release's default (both read in a v0.5.8/9-era
    // server_args.py, 271536807).
    constexpr std::array<std::string_view, 7> kSmallTree = {
        "DeepseekV3ForCausalLM",  "DeepseekV2ForCausalLM", "GptOssForCausalLM",
        "DeepseekV32ForCausalLM", "Glm4MoeForCausalLM",    "Glm4MoeLiteForCausalLM",
        "GlmMoeDsaForCausalLM"};
    const bool deepseek_like =
        std::find(kSmallTree.begin(), kSmallTree.end(), architecture) != kSmallTree.end();
    const bool small_tree = s.algorithm == "STANDALONE" || deepseek_like;
    s.num_steps = flags.speculative_num_steps.value_or(small_tree ? 3 : 5);
    s.eagle_topk = flags.speculative_eagle_topk.value_or(small_tree ? 1 : 4);
    s.num_draft_tokens = flags.speculative_num_draft_tokens.value_or(small_tree ? 4 : 8);
    // With topk 1 the draft tree is a chain: SGLang forces num_steps + 1 draft tokens.
    if (s.eagle_topk == 1) s.num_draft_tokens = s.num_steps + 1;
  }
  r.max_running_requests = flags.max_running_requests;
  if (!r.max_running_requests && !r.speculative.algorithm.empty()) {
    r.max_running_requests = 48;  // sglang v0.5.9 server_args.py _handle_speculative_decoding
  }

  // server_args.py (as quoted from upstream in a fork's merge log, id 55279047383): "if
  // self.cpu_offload_gb > 0 or self.enable_hierarchical_cache: self.disable_piecewise_cuda_graph
  // = True", where piecewise graphs are on by default; taken to come before the automatic
  // fraction below, which then keeps nothing back for them (UNCONFIRMED order).
  r.piecewise_cuda_graph = rules.piecewise_cuda_graph_default_on
                               ? !flags.disable_piecewise_cuda_graph && flags.cpu_offload_gb <= 0
                               : flags.enable_piecewise_cuda_graph;

  const bool fixed_list = !rules.generated_capture_list;
  if (fixed_list) {
    if (flags.cuda_graph_bs && !flags.cuda_graph_bs->empty()) {
      r.cuda_graph_bs = *flags.cuda_graph_bs;
    } else {
      r.cuda_graph_bs = fixed_cuda_graph_bs(gpu_mem_mib, !r.speculative.algorithm.empty(),
                                            flags.disable_cuda_graph_padding,
                                            rules.capture_list_pr6201, flags.dp_size);
    }
    // The capture-time filter by --cuda-graph-max-bs (and PR #6201's extension in steps of
    // 16) decides the largest size, before any request pool bounds it.
    std::int64_t top = 0;
    for (std::int64_t b : r.cuda_graph_bs) {
      if (!r.capture_max_bs || b <= *r.capture_max_bs) top = std::max(top, b);
    }
    if (r.capture_max_bs && rules.capture_list_pr6201 && top > 0 && top < *r.capture_max_bs) {
      top += (*r.capture_max_bs - top) / 16 * 16;
    }
    r.cuda_graph_max_bs = top;
  }

  if (flags.mem_fraction_static) {
    r.mem_fraction_static = *flags.mem_fraction_static;
  } else if (rules.mem_fraction == MemFractionRule::kByParallelSize) {
    r.mem_fraction_static = fraction_by_parallel_size(flags, rules, gpu_mem_mib);
    r.mem_fraction_static_is_auto = true;
  } else if (rules.mem_fraction == MemFractionRule::kReserveByClass) {
    r.reserved_mib = reserve_by_class(flags, r.speculative, rules, gpu_mem_mib);
    r.mem_fraction_static = python_round3((gpu_mem_mib - r.reserved_mib) / gpu_mem_mib);
    r.mem_fraction_static_is_auto = true;
  } else {
    // sglang v0.5.9 server_args.py _handle_gpu_memory_settings: the automatic mfs.
    double reserved = 512;  // "constant meta data", MiB
    if (r.chunked_prefill_size > 0) {
      reserved += static_cast<double>(std::max<std::int64_t>(r.chunked_prefill_size, 2048)) * 1.5;
    } else {
      reserved += static_cast<double>(std::max<std::int64_t>(flags.max_prefill_tokens, 2048)) * 1.5;
    }
    reserved += static_cast<double>(r.cuda_graph_max_bs * 2);
    reserved += static_cast<double>(flags.tp_size * flags.pp_size) / 8 * 1024;
    if (flags.enable_dp_attention) {
      reserved += static_cast<double>(r.cuda_graph_max_bs * flags.dp_size * 3);
      if (r.cuda_graph_max_bs > 300) {
        reserved += static_cast<double>(r.cuda_graph_max_bs * flags.dp_size) * 1.5;
      }
    }
    if (r.piecewise_cuda_graph) {
      if (rules.piecewise_cuda_graph_default_on && uses_mla) {
        reserved += 1.5 * 1024;  // sglang v0.5.10 server_args.py: MLA piecewise reserve
      } else {
        const std::int64_t max_tokens = flags.piecewise_cuda_graph_max_tokens.value_or(
            uses_mla ? 2048 : r.chunked_prefill_size);
        const size_t sizes = flags.piecewise_cuda_graph_tokens
                                 ? flags.piecewise_cuda_graph_tokens->size()
                                 : piecewise_cuda_graph_tokens(max_tokens).size();
        reserved += static_cast<double>(sizes * 8);
      }
    }
    if (gpu_mem_mib > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
    if (r.speculative.algorithm == "STANDALONE") {
      reserved += 6 * 1024;
    } else if (!r.speculative.algorithm.empty() && r.speculative.algorithm != "NGRAM") {
      reserved += rules.speculative_reserve_mib;
    }
    r.reserved_mib = reserved;
    r.mem_fraction_static = python_round3((gpu_mem_mib - reserved) / gpu_mem_mib);
    r.mem_fraction_static_is_auto = true;
    if (vision.present() && serves_multimodal(flags, architecture)) {
      r.vision_factor = vision_mem_fraction_factor(vision);
      r.mem_fraction_static *= r.vision_factor;
    }
  }

  if (fixed_list) return r;
  if (flags.cuda_graph_bs && !flags.cuda_graph_bs->empty()) {
    r.cuda_graph_bs = *flags.cuda_graph_bs;
  } else {
    r.cuda_graph_bs =
        default_cuda_graph_bs(r.cuda_graph_max_bs, !r.speculative.algorithm.empty(),
                              flags.disable_cuda_graph_padding, rules.capture_list_appends_max_bs);
  }
  return r;
}

}  // namespace gpumem::sglang
