#include "engine/sglang/version.h"

#include <charconv>

namespace gpumem::sglang {

std::string Version::to_string() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<Version> parse_version(std::string_view text) {
  if (!text.empty() && text.front() == 'v') text.remove_prefix(1);
  if (size_t post = text.find(".post"); post != std::string_view::npos) {
    text = text.substr(0, post);
  }
  Version v;
  int* parts[3] = {&v.major, &v.minor, &v.patch};
  for (int i = 0; i < 3; ++i) {
    const char* begin = text.data();
    auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), *parts[i]);
    if (ec != std::errc() || ptr == begin) return std::nullopt;
    text.remove_prefix(static_cast<size_t>(ptr - begin));
    if (i < 2) {
      if (text.empty() || text.front() != '.') return std::nullopt;
      text.remove_prefix(1);
    }
  }
  if (!text.empty()) return std::nullopt;
  return v;
}

VersionRules rules_for(const Version& v) {
  VersionRules r;
  r.piecewise_cuda_graph_default_on = v >= Version{0, 5, 10};
  r.speculative_reserve_mib = v >= Version{0, 5, 14} ? 0 : v >= Version{0, 5, 10} ? 4096 : 2048;
  r.draft_counted_in_kv_sizing = v >= Version{0, 5, 14};
  r.max_reqs_capped_by_half_tokens = v >= Version{0, 5, 10};
  return r;
}

}  // namespace gpumem::sglang
