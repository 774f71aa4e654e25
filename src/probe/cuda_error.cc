#include "probe/cuda_error.h"

#include <fmt/format.h>

#include <string>

namespace gpumem::probe {

Status check_cuda(cudaError_t e, std::string_view call) {
  if (e == cudaSuccess) return Status::ok_status();
  (void)cudaGetLastError();
  const StatusCode code =
      e == cudaErrorMemoryAllocation ? StatusCode::kOutOfMemory : StatusCode::kInternal;
  return Status(code, fmt::format("{}: {} ({})", call, cudaGetErrorString(e), cudaGetErrorName(e)));
}

Status check_nccl(ncclResult_t r, std::string_view call, ncclComm_t comm) {
  if (r == ncclSuccess || r == ncclInProgress) return Status::ok_status();
  const char* last = ncclGetLastError(comm);
  const std::string last_text = last != nullptr ? last : "";
  // NCCL reports a failed cudaMalloc/cuMemCreate as an unhandled CUDA error whose last
  // message quotes CUDA's "out of memory" (nccl src/include/checks.h CUDACHECK, CUCHECK).
  const bool oom =
      r == ncclUnhandledCudaError && last_text.find("out of memory") != std::string::npos;
  return Status(
      oom ? StatusCode::kOutOfMemory : StatusCode::kInternal,
      fmt::format("{}: {} (ncclResult {}){}", call, ncclGetErrorString(r), static_cast<int>(r),
                  last_text.empty() ? "" : "; NCCL's last error: " + last_text));
}

}  // namespace gpumem::probe
