// CUDA and NCCL return codes as Status values whose message names the call.
//
// Every CUDA and NCCL call in the probe goes through these, so that the first real run tells
// exactly which call failed and why: "cudaMalloc(2,097,152 B): out of memory
// (cudaErrorMemoryAllocation)". Out-of-memory is kOutOfMemory (a finding the step runner
// records); everything else is kInternal.
#ifndef GPUMEM_PROBE_CUDA_ERROR_H_
#define GPUMEM_PROBE_CUDA_ERROR_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string_view>

#include "core/status.h"

namespace gpumem::probe {

// Ok for cudaSuccess; otherwise the call, CUDA's text and the error's name. Clears CUDA's
// last-error state for errors that are not sticky, so one failed call does not poison the
// next check.
Status check_cuda(cudaError_t e, std::string_view call);

// Ok for ncclSuccess and ncclInProgress (non-blocking communicators); otherwise the call,
// NCCL's text and NCCL's last error message, which carries the underlying CUDA or system
// error. An NCCL failure caused by a failed device allocation is kOutOfMemory.
Status check_nccl(ncclResult_t r, std::string_view call, ncclComm_t comm = nullptr);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_CUDA_ERROR_H_
