// The SGLang flags that v0.5.21 accepts beyond those gpumem's memory rules read (flags.cc):
// the host-side ones, which allocate no device memory during start-up (HTTP, logging,
// metrics, tokenizer, scheduling policy, host cache tiers, ports), and the ones whose memory
// effect gpumem does not model, refused naming what they change. A pasted launch command of
// the newest release is then read whole: no flag of it is unknown, none is ignored silently.
// Since v0.5.20 the flags are generated from the fields of python/sglang/srt/arg_groups/
// fields/*.py (arg_utils.py add_cli_args_from_dataclass: a field foo_bar is --foo-bar).
#ifndef GPUMEM_ENGINE_SGLANG_NEWEST_FLAGS_H_
#define GPUMEM_ENGINE_SGLANG_NEWEST_FLAGS_H_

#include <vector>

#include "engine/flag_table.h"

namespace gpumem::sglang {

// Flags with no device memory at start-up: accepted and not read.
const std::vector<FlagSpec>& host_side_flags();

// Flags whose memory effect gpumem does not model: refused by name when set to anything but
// their default.
const std::vector<FlagSpec>& unmodelled_flags();

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_NEWEST_FLAGS_H_
