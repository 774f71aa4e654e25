// The `vllm serve` flags of releases 0.10.1 to 0.21.x that the newest readable source
// (newest_flags.h: v0.29-era main) no longer has (engine/retired_flags.h), read from six dated
// copies of engine/arg_utils.py and entrypoints/openai/cli_args.py and their removal PRs; where
// only the PR's merge date is known, the release is the next one after it (UNCONFIRMED), later
// where the flag has no memory effect, so that a real command of its release is never refused for
// it.
#ifndef GPUMEM_ENGINE_VLLM_OLDER_FLAGS_H_
#define GPUMEM_ENGINE_VLLM_OLDER_FLAGS_H_

#include <span>

#include "engine/retired_flags.h"

namespace gpumem::vllm {

std::span<const RetiredFlag> older_release_flags();

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_OLDER_FLAGS_H_
