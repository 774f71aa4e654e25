#include "engine/sglang/version.h"

#include <charconv>

namespace gpumem::sglang {

std::string Version::to_string() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  if (post != 0) s += ".post" + std::to_string(post);
  return s;
}

namespace {

// Reads one decimal component at the start of `text`; false when there is none.
bool read_int(std::string_view& text, int& out) {
  const char* begin = text.data();
  auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), out);
  if (ec != std::errc() || ptr == begin) return false;
  text.remove_prefix(static_cast<size_t>(ptr - begin));
  return true;
}

}  // namespace

std::optional<Version> parse_version(std::string_view text) {
  if (!text.empty() && text.front() == 'v') text.remove_prefix(1);
  Version v;
  int* parts[3] = {&v.major, &v.minor, &v.patch};
  for (int i = 0; i < 3; ++i) {
    if (!read_int(text, *parts[i])) return std::nullopt;
    if (i < 2) {
      if (text.empty() || text.front() != '.') return std::nullopt;
      text.remove_prefix(1);
    }
  }
  constexpr std::string_view kPost = ".post";
  if (text.starts_with(kPost)) {
    text.remove_prefix(kPost.size());
    if (!read_int(text, v.post)) return std::nullopt;
  }
  if (!text.empty()) return std::nullopt;
  return v;
}

bool is_modelled(const Version& v) {
  const Version n = kNewestModelled;
  return v >= kOldestModelled && v < Version{n.major, n.minor, n.patch + 1};
}

VersionRules rules_for(const Version& v) {
  VersionRules r;
  const bool pr7054 = v >= Version{0, 4, 7};
  const bool pr10975 = v >= Version{0, 5, 3};
  r.mem_fraction = pr10975  ? MemFractionRule::kReserveFormula
                   : pr7054 ? MemFractionRule::kReserveByClass
                            : MemFractionRule::kByParallelSize;
  r.generated_capture_list = pr10975;
  r.capture_list_pr6201 = v >= Version{0, 4, 6, 3};
  // PR #5893 opened 2025-04-29, after v0.4.6.post1 was tagged (UNCONFIRMED: post1 read as
  // v0.4.6's rule).
  r.large_gpu_fraction_pr5893 = v >= Version{0, 4, 6, 2};
  r.req_pool_extra_row = !pr7054;
  r.eagle_token_headroom = v < Version{0, 5, 7};
  r.piecewise_cuda_graph_default_on = v >= Version{0, 5, 10};
  r.speculative_reserve_mib = v >= Version{0, 5, 14}   ? 0
                              : v >= Version{0, 5, 10} ? 4096
                              : pr7054                 ? 2048
                                                       : 0;
  r.draft_counted_in_kv_sizing = v >= Version{0, 5, 14};
  r.max_reqs_capped_by_half_tokens = v >= Version{0, 5, 10};
  r.capture_list_appends_max_bs = v >= Version{0, 5, 18};
  r.small_gpu_class_raised = v >= Version{0, 5, 19};
  r.dsa_cell_counts_stored_latent = v >= Version{0, 5, 18};
  r.summary_has_available_mem = pr7054;
  r.kv_log_has_dtype = v >= Version{0, 5, 10};
  r.graph_log_per_kind = v >= Version{0, 5, 12};
  r.graph_log_tokens_per_req = v >= Version{0, 5, 17};
  r.load_log_has_dtype = v < Version{0, 5, 17};
  return r;
}

}  // namespace gpumem::sglang
