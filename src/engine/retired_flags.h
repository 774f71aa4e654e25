// Flags an engine's older releases take and its newest no longer does. An engine's flag table
// is read from its newest release's source, so without these a command or a log of an older
// release, written with that release's own flags, would be refused as unknown.
//
// Each retired flag says the first release that no longer takes it and, when it changes start-up
// memory in a way gpumem does not model, why: the flag is read like any other, refused by name
// where it has a memory effect, accepted where it has none, and from the release that dropped it on
// it is an error saying so (the engine's argparse would stop on it), and how to simulate the
// command at the release it was written for.
#ifndef GPUMEM_ENGINE_RETIRED_FLAGS_H_
#define GPUMEM_ENGINE_RETIRED_FLAGS_H_

#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/flag_table.h"

namespace gpumem {

struct RetiredFlag {
  std::string_view name;
  std::vector<std::string_view> aliases;
  FlagType type;
  std::string_view removed_in;  // the first release that no longer takes it
  // Why its memory effect is not modelled; empty when it has none (host-side only).
  std::string_view not_modelled;
  // Values that leave the engine as gpumem models it (vLLM's --task generate).
  std::vector<std::string_view> harmless_values;
};

// The flags as table rows (engine/flag_table.h), without the memory refusal, which
// refuse_retired_flags gives once the release is known.
std::vector<FlagSpec> retired_flag_specs(std::span<const RetiredFlag> flags);

// Reports each retired flag `v` holds: at a release `dropped(removed_in)` says no longer takes
// it, that `title` `release` has no such flag; otherwise, when it has a memory effect, that
// it is not modelled and why.
void check_retired_flags(const FlagValues& v, std::span<const RetiredFlag> flags,
                         std::string_view title, std::string_view release,
                         const std::function<bool(std::string_view)>& dropped, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_RETIRED_FLAGS_H_
