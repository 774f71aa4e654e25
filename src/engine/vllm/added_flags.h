// The `vllm serve` flags of the newest readable source (newest_flags.h: v0.29-era main) that
// came after vLLM 0.10.1 (engine/added_flags.h), each with the release that added it as the
// parser dumps of released images and the PRs that added them show. Only flags whose first
// release is known, or bounded above the modelled releases, are listed; a flag whose release
// is not known is accepted at every release.
#ifndef GPUMEM_ENGINE_VLLM_ADDED_FLAGS_H_
#define GPUMEM_ENGINE_VLLM_ADDED_FLAGS_H_

#include <span>

#include "engine/added_flags.h"

namespace gpumem::vllm {

std::span<const AddedFlag> newer_release_flags();

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_ADDED_FLAGS_H_
