// The vLLM flags that the newest readable source (engine/arg_utils.py and entrypoints/
// launchers/cli_args.py at 4897bc66, v0.29-era main) accepts beyond those gpumem's memory rules
// read (flags.cc): the host-side ones, which allocate no device memory during start-up (HTTP,
// logging, metrics, tokenizer, scheduling policy, multi-node wiring), and the ones whose
// memory effect gpumem does not model, refused naming what they change. A pasted launch
// command of a newer release is then read whole: no flag of it is unknown, none is ignored
// silently. Each config dataclass field foo_bar is the flag --foo-bar (arg_utils.py
// get_kwargs); a boolean also takes --no-foo-bar.
#ifndef GPUMEM_ENGINE_VLLM_NEWEST_FLAGS_H_
#define GPUMEM_ENGINE_VLLM_NEWEST_FLAGS_H_

#include <vector>

#include "engine/flag_table.h"

namespace gpumem::vllm {

// Flags with no device memory at start-up: accepted and not read.
const std::vector<FlagSpec>& host_side_flags();

// Flags whose memory effect gpumem does not model: refused by name when set to anything but
// their default.
const std::vector<FlagSpec>& unmodelled_flags();

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_NEWEST_FLAGS_H_
