// NcclSettings as NCCL sees them: environment variables.
//
// NCCL reads its NCCL_* variables once per process, at the first NCCL call (its parameters
// are cached), so the settings of a probe rank's communicators are fixed by the environment
// the rank was started with. The launcher turns the settings into variables for each rank
// (`nccl_env_assignments`); the rank checks, before creating a communicator, that its
// environment says exactly what the settings ask (`check_nccl_env`) — a communicator
// measured under other settings than the ledger's would be a silent mismatch.
//
// An unset field means NCCL's default, so its variable must be unset too. NVLink multicast
// is the exception: gpumem never enables it (cuMulticastCreate can take shared GPUs out of
// service), so NCCL_NVLS_ENABLE is always "0".
#ifndef GPUMEM_PROBE_NCCL_ENV_H_
#define GPUMEM_PROBE_NCCL_ENV_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "device/comm.h"
#include "probe/rank_env.h"

namespace gpumem::probe {

// A variable and the value it must have; nullopt: it must be unset.
using NcclEnvExpectation = std::pair<std::string, std::optional<std::string>>;

// Every variable NcclSettings governs, with the value `s` implies. kInvalidInput when `s`
// asks for NVLink multicast.
Result<std::vector<NcclEnvExpectation>> nccl_env_expectations(const NcclSettings& s);

// kInvalidInput naming the first variable whose value in `env` differs from `s`.
Status check_nccl_env(const NcclSettings& s, const EnvLookup& env);

// The settings an environment stands for (the inverse of nccl_env_expectations), for runs
// whose NCCL settings are whatever the rank was started with. kInvalidInput for a value NCCL
// would read differently from gpumem (a size with a unit, a flag other than 0/1) or for the
// NCCL_MIN_CTAS/NCCL_MAX_CTAS spellings, which gpumem does not model.
Result<NcclSettings> nccl_settings_from_env(const EnvLookup& env);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_NCCL_ENV_H_
