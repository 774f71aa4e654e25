// SGLang release versions and the start-up rules that changed between them.
//
// gpumem models v0.5.9 (the baseline its research read line by line) through v0.5.18. Rules
// that differ are data here, keyed by version, so the engine model has one code path with
// small branches instead of copies per release (sources: research/sglang-memory.md §3.10,
// §4.5).
#ifndef GPUMEM_ENGINE_SGLANG_VERSION_H_
#define GPUMEM_ENGINE_SGLANG_VERSION_H_

#include <optional>
#include <string>
#include <string_view>

namespace gpumem::sglang {

struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  auto operator<=>(const Version&) const = default;
  std::string to_string() const;
};

// "0.5.9" or "v0.5.9"; also post releases "0.5.9.post1" (same rules as 0.5.9).
std::optional<Version> parse_version(std::string_view text);

inline constexpr Version kOldestModelled{0, 5, 9};
inline constexpr Version kNewestModelled{0, 5, 18};

// The version-dependent rules the model consults.
struct VersionRules {
  // Piecewise CUDA graphs on unless disabled (PR #16331, v0.5.10).
  bool piecewise_cuda_graph_default_on;
  // MiB the mfs heuristic reserves for EAGLE/EAGLE3/NEXTN drafts (2048 in v0.5.9, 4096 in
  // v0.5.10–0.5.13, none from v0.5.14 where the draft is budgeted exactly, PR #23862).
  int speculative_reserve_mib;
  // Draft KV folded into cell_size and draft weights loaded before KV sizing (v0.5.14).
  bool draft_counted_in_kv_sizing;
  // max_running_requests default min(estimate, T//2) in the pool sizing (v0.5.10).
  bool max_reqs_capped_by_half_tokens;
};

VersionRules rules_for(const Version& v);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_VERSION_H_
