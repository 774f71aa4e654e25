#include "engine/added_flags.h"

#include <string>

namespace gpumem {

void check_added_flags(const FlagValues& v, std::span<const AddedFlag> flags,
                       std::string_view title, std::string_view release,
                       const std::function<bool(std::string_view)>& before, Diagnostics& diags) {
  for (const AddedFlag& f : flags) {
    const std::optional<SourceLoc> at = v.location(f.name);
    if (!at || !before(f.added_in)) continue;
    diags.error(*at, "'" + std::string(f.name) + "' is not a flag of " + std::string(title) + " " +
                         std::string(release) + " (added in " + std::string(f.added_in) +
                         (f.bound_only ? " or later" : "") + ")");
  }
}

}  // namespace gpumem
