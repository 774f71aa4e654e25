// Who this process is in a probe run: its rank, the world size, its GPU and where rank 0
// listens — read from whichever launcher started it.
//
// Three launchers are understood, tried in this order:
//  * torchrun style (also the probe's own fork launcher): RANK, WORLD_SIZE, LOCAL_RANK;
//  * Open MPI: OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK;
//  * PMI (MPICH, Intel MPI, Slurm): PMI_RANK, PMI_SIZE and MPI_LOCALRANKID or SLURM_LOCALID.
// MASTER_ADDR and MASTER_PORT always come from the environment. When none of the rank
// variables is set the probe is its own launcher (one child per visible GPU).
//
// LOCAL_RANK selects the GPU: the rank uses CUDA device ordinal LOCAL_RANK among the devices
// the process sees, as serving engines do (`torch.cuda.set_device(local_rank)`), rather than
// narrowing CUDA_VISIBLE_DEVICES per process, so peer access and IPC between ranks behave as
// they do in an engine.
#ifndef GPUMEM_PROBE_RANK_ENV_H_
#define GPUMEM_PROBE_RANK_ENV_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gpumem::probe {

enum class Launcher { kProbe, kTorchrun, kOpenMpi, kPmi };

std::string_view launcher_name(Launcher l);

struct RankEnv {
  Launcher launcher = Launcher::kProbe;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr;
  int master_port = 0;
};

// Looks a variable up; nullopt when it is not set. Tests pass a map instead of the process
// environment.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

EnvLookup process_env();

// The variable the probe's own launcher sets in its children, so that they know they were
// started by it (and report launcher "probe").
inline constexpr std::string_view kProbeLauncherVar = "GPUMEM_PROBE_LAUNCHER";

// The rank environment, nullopt when no launcher variables are set, or kInvalidInput naming
// the variable that is missing or malformed.
Result<std::optional<RankEnv>> rank_env_from(const EnvLookup& env);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_RANK_ENV_H_
