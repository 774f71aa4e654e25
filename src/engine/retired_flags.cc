#include "engine/retired_flags.h"

#include <algorithm>
#include <string>

namespace gpumem {
namespace {

// Whether the flag is given a value that changes what gpumem models.
bool set(const FlagValues& v, const RetiredFlag& f) {
  if (f.type == FlagType::kBool) return v.boolean(f.name);
  std::optional<std::string> value = v.string(f.name);
  if (f.type == FlagType::kInt) {
    const std::optional<std::int64_t> n = v.integer(f.name);
    value = n ? std::optional<std::string>(std::to_string(*n)) : std::nullopt;
  }
  return !value || std::find(f.harmless_values.begin(), f.harmless_values.end(), *value) ==
                       f.harmless_values.end();
}

}  // namespace

std::vector<FlagSpec> retired_flag_specs(std::span<const RetiredFlag> flags) {
  std::vector<FlagSpec> specs;
  for (const RetiredFlag& f : flags) {
    specs.push_back({f.name, f.aliases, f.type, !f.not_modelled.empty(), {}});
  }
  return specs;
}

void check_retired_flags(const FlagValues& v, std::span<const RetiredFlag> flags,
                         std::string_view title, std::string_view release,
                         const std::function<bool(std::string_view)>& dropped, Diagnostics& diags) {
  for (const RetiredFlag& f : flags) {
    const std::optional<SourceLoc> at = v.location(f.name);
    if (!at) continue;
    if (dropped(f.removed_in)) {
      diags.error(*at, "'" + std::string(f.name) + "' is not a flag of " + std::string(title) +
                           " " + std::string(release) + " (removed in " +
                           std::string(f.removed_in) +
                           "; a command of an earlier release simulates with that release as "
                           "the engine version)");
    } else if (!f.not_modelled.empty() && set(v, f)) {
      diags.error(*at,
                  "'" + std::string(f.name) + "' is not modelled: " + std::string(f.not_modelled));
    }
  }
}

}  // namespace gpumem
