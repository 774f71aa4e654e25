// What a probe measurement ran on, recorded next to every result so that calibration can
// tell runs apart: the host, the GPU (name, UUID, compute capability, SMs, threads per SM,
// memory, ECC), the driver and library versions (NVML driver, CUDA driver and runtime, NCCL
// at run time and at build time), the module loading mode, how every pair of visible GPUs is
// connected (CUDA peer attributes and NVML's NVLink and PCIe view), and every NCCL_* and
// CUDA_* variable in effect. Runs whose NCCL transport was forced host-staged (P2P disabled
// or limited) are marked as PCIe emulations.
#ifndef GPUMEM_PROBE_PROVENANCE_H_
#define GPUMEM_PROBE_PROVENANCE_H_

#include <nlohmann/json.hpp>

#include "probe/rank_runtime.h"

namespace gpumem::probe {

// Needs the rank's CUDA context (creates it when missing). Fields that cannot be read are
// null, with the reason under "errors".
nlohmann::json collect_provenance(RankRuntime& rt);

// The NCCL_* and CUDA_* variables of this process, by name.
nlohmann::json nccl_cuda_environment();

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_PROVENANCE_H_
