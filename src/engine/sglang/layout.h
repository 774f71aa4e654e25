// SGLang's parallel layout: how many GPUs a start-up uses and which rank does what.
#ifndef GPUMEM_ENGINE_SGLANG_LAYOUT_H_
#define GPUMEM_ENGINE_SGLANG_LAYOUT_H_

#include <cstdint>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/sglang/flags.h"

namespace gpumem::sglang {

// GPUs one SGLang launch occupies: tp × pp × dp, where data-parallel attention (--enable-dp-
// attention) splits the TP group instead of adding replicas
// (sglang v0.5.9 server_args.py _handle_data_parallelism; dp_attention.py
// compute_dp_attention_world_info).
// 64-bit: three flags of up to 4096 each overflow an int.
std::int64_t gpus_needed(const ServerFlags& flags);

// Checks the layout against the hardware and SGLang's own rules. False when the ranks' groups
// cannot even be computed (--dp-size or --ep-size does not divide --tp-size: attention TP =
// TP / DP would be 0 or fractional), so nothing may divide by them; a GPU count that merely
// disagrees with the hardware is reported and leaves the layout computable.
bool check_layout(const Scenario& scenario, const ServerFlags& flags, Diagnostics& diags);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_LAYOUT_H_
