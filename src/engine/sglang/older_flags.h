// The launch_server flags of releases 0.4.6 to 0.5.20 that v0.5.21 no longer has
// (engine/retired_flags.h), read from nine dated copies of server_args.py and their removal
// PRs; where only a PR's merge date is known, the release is the next one after the last copy
// that has the flag (UNCONFIRMED), later where the flag has no memory effect, so that a real
// command of its release is never refused for it.
#ifndef GPUMEM_ENGINE_SGLANG_OLDER_FLAGS_H_
#define GPUMEM_ENGINE_SGLANG_OLDER_FLAGS_H_

#include <span>

#include "engine/retired_flags.h"

namespace gpumem::sglang {

std::span<const RetiredFlag> older_release_flags();

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_OLDER_FLAGS_H_
