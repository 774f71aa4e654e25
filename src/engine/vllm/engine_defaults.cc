#include "engine/vllm/engine_defaults.h"

#include <algorithm>
#include <set>

#include "core/lower_case.h"

namespace gpumem::vllm {
namespace {

// Sizes in ascending order without duplicates.
std::vector<std::int64_t> sorted_unique(const std::vector<std::int64_t>& sizes) {
  std::set<std::int64_t> unique(sizes.begin(), sizes.end());
  return {unique.begin(), unique.end()};
}

}  // namespace

BatchDefaults batch_defaults(const DeviceClass& device, bool offline) {
  // vllm engine/arg_utils.py get_batch_defaults: "Setting large max_num_batched_tokens for
  // A100 reduces throughput" (PR #17885), hence the name check.
  const std::string name = lower_case(device.device_name);
  if (device.total_memory >= gib(70) && name.find("a100") == std::string::npos) {
    return {offline ? 16384 : 8192, 1024};
  }
  return {offline ? 8192 : 2048, 256};
}

std::vector<std::int64_t> cudagraph_capture_sizes(const VersionRules& rules,
                                                  std::int64_t max_num_seqs,
                                                  std::int64_t max_num_batched_tokens,
                                                  std::int64_t num_speculative_tokens,
                                                  const std::vector<std::int64_t>& explicit_sizes,
                                                  std::int64_t max_size) {
  std::vector<std::int64_t> sizes;
  if (!explicit_sizes.empty()) {
    // A user list is deduplicated and cut at max_num_batched_tokens.
    for (std::int64_t s : sorted_unique(explicit_sizes)) {
      if (s <= max_num_batched_tokens) sizes.push_back(s);
    }
    return sizes;
  }
  if (!rules.two_step_capture_sizes) {
    // vllm v0.10 config/scheduler.py: cuda_graph_sizes = [min(max_num_seqs * 2, 512)];
    // config/__init__.py _set_cudagraph_sizes: [1, 2, 4] + range(8, max + 1, 8), then the
    // sizes above max_num_batched_tokens are dropped.
    const std::int64_t max =
        max_size > 0 ? max_size : std::min<std::int64_t>(max_num_seqs * 2, 512);
    sizes = {1, 2, 4};
    for (std::int64_t s = 8; s <= max; s += 8) sizes.push_back(s);
    std::erase_if(sizes, [&](std::int64_t s) { return s > max_num_batched_tokens; });
    return sizes;
  }
  // vllm config/vllm.py _set_cudagraph_sizes (PR #26016): the default maximum covers a
  // uniform-decode batch of max_num_seqs requests of 1 + num_speculative_tokens tokens.
  const std::int64_t decode_query_len = 1 + num_speculative_tokens;
  std::int64_t max =
      max_size > 0 ? max_size : std::min<std::int64_t>(max_num_seqs * decode_query_len * 2, 512);
  max = std::min(max, max_num_batched_tokens);
  for (std::int64_t s : {1, 2, 4}) {
    if (s <= max) sizes.push_back(s);
  }
  for (std::int64_t s = 8; s < std::min<std::int64_t>(max + 1, 256); s += 8) sizes.push_back(s);
  for (std::int64_t s = 256; s <= max; s += 16) sizes.push_back(s);
  if (rules.capture_sizes_include_batched_tokens && max_num_batched_tokens <= max) {
    sizes.push_back(max_num_batched_tokens);
  }
  return sorted_unique(sizes);
}

ResolvedArgs resolve_engine_args(const EngineFlags& flags, const VersionRules& rules,
                                 const DeviceClass& device, std::int64_t max_model_len) {
  ResolvedArgs r;
  r.gpu_memory_utilization =
      flags.gpu_memory_utilization.value_or(rules.default_gpu_memory_utilization);
  r.max_model_len = max_model_len;
  const BatchDefaults defaults = batch_defaults(device, flags.offline);
  r.max_num_seqs = flags.max_num_seqs.value_or(defaults.max_num_seqs);
  r.max_num_batched_tokens = flags.max_num_batched_tokens.value_or(defaults.max_num_batched_tokens);
  r.num_speculative_tokens = flags.speculative ? flags.speculative->num_speculative_tokens : 0;

  // vllm config/vllm.py: --enforce-eager sets cudagraph_mode NONE; the default mode is
  // FULL_AND_PIECEWISE from v0.11.0, PIECEWISE before. An optimization level only fills an
  // unset mode (_set_config_default); before v0.12.0 a level below 3 captures nothing.
  const CudagraphMode default_mode = rules.full_and_piecewise_default
                                         ? CudagraphMode::kFullAndPiecewise
                                         : CudagraphMode::kPiecewise;
  if (flags.enforce_eager) {
    r.cudagraph_mode = CudagraphMode::kNone;
  } else if (flags.cudagraph_mode) {
    r.cudagraph_mode = *flags.cudagraph_mode;
  } else if (flags.optimization_level && rules.optimization_levels) {
    r.cudagraph_mode = *flags.optimization_level == 0   ? CudagraphMode::kNone
                       : *flags.optimization_level == 1 ? CudagraphMode::kPiecewise
                                                        : CudagraphMode::kFullAndPiecewise;
  } else if (flags.optimization_level) {
    r.cudagraph_mode = *flags.optimization_level == 3 ? default_mode : CudagraphMode::kNone;
  } else {
    r.cudagraph_mode = default_mode;
  }
  // ... and a --compilation-config mode other than VLLM_COMPILE (3) cannot run piecewise
  // graphs: a mode that needs them becomes NONE (mode NONE's default is no graphs at all).
  if (flags.compilation_mode && *flags.compilation_mode != 3 &&
      (r.cudagraph_mode == CudagraphMode::kPiecewise ||
       r.cudagraph_mode == CudagraphMode::kFullAndPiecewise)) {
    r.cudagraph_mode = CudagraphMode::kNone;
  }
  if (r.cudagraph_mode == CudagraphMode::kNone) return r;

  std::vector<std::int64_t> explicit_sizes;
  std::int64_t max_size = flags.max_cudagraph_capture_size.value_or(0);
  if (flags.cudagraph_capture_sizes) explicit_sizes = *flags.cudagraph_capture_sizes;
  if (flags.cuda_graph_sizes) {
    // Before v0.11.1 one value of --cuda-graph-sizes is the maximum, several are the list.
    if (flags.cuda_graph_sizes->size() == 1) {
      max_size = flags.cuda_graph_sizes->front();
    } else {
      explicit_sizes = *flags.cuda_graph_sizes;
    }
  }
  r.capture_sizes = cudagraph_capture_sizes(rules, r.max_num_seqs, r.max_num_batched_tokens,
                                            r.num_speculative_tokens, explicit_sizes, max_size);
  if (r.capture_sizes.empty()) return r;
  r.max_cudagraph_capture_size = r.capture_sizes.back();

  // vllm v1/cudagraph_dispatcher.py initialize_cudagraph_keys: mixed batches get one graph
  // per size (PIECEWISE, or FULL in FULL mode); with a separate decode routine, uniform
  // decode batches get FULL graphs for q <= size <= q x max_num_seqs.
  const std::int64_t q = 1 + r.num_speculative_tokens;
  switch (r.cudagraph_mode) {
    case CudagraphMode::kPiecewise:
      r.piecewise_sizes = r.capture_sizes;
      break;
    case CudagraphMode::kFull:
      r.full_sizes = r.capture_sizes;
      break;
    case CudagraphMode::kFullAndPiecewise:
    case CudagraphMode::kFullDecodeOnly:
      if (r.cudagraph_mode == CudagraphMode::kFullAndPiecewise) r.piecewise_sizes = r.capture_sizes;
      for (std::int64_t s : r.capture_sizes) {
        if (s >= q && s <= q * r.max_num_seqs) r.full_sizes.push_back(s);
      }
      break;
    case CudagraphMode::kNone:
      break;
  }
  return r;
}

}  // namespace gpumem::vllm
