// The NCCL_* environment variables that change a communicator's memory, read from a
// scenario's `engine.env` into the settings the NCCL model takes. Every engine's processes
// hand their environment to NCCL unchanged, so the reading is shared; what an engine sets
// itself (SGLang's and older vLLM's NCCL_CUMEM_ENABLE) is applied by its plan afterwards.
#ifndef GPUMEM_ENGINE_NCCL_ENVIRONMENT_H_
#define GPUMEM_ENGINE_NCCL_ENVIRONMENT_H_

#include <span>
#include <string_view>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "device/comm.h"

namespace gpumem {

// Reads `v` into `settings` when it is one of the variables the NCCL model knows (a bad
// value is an error at the value); returns false for any other variable.
bool read_nccl_variable(const EnvVar& v, NcclSettings& settings, Diagnostics& diags);

// The names `read_nccl_variable` reads, in its order.
std::span<const std::string_view> nccl_variables();

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_NCCL_ENVIRONMENT_H_
