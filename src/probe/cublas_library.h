// cuBLAS, opened at run time: the probe's measurement of what a GEMM library costs a
// context (its handle, its workspace, its kernels) when an engine runs its first matmul.
//
// The binary does not link cuBLAS (libcublas.so.13 is 50 MiB and not on every GPU machine);
// it opens it with dlopen and looks up the handful of functions it calls. Where cuBLAS is
// missing, loading fails with a message naming what was tried, and the probe goes on.
#ifndef GPUMEM_PROBE_CUBLAS_LIBRARY_H_
#define GPUMEM_PROBE_CUBLAS_LIBRARY_H_

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "core/status.h"

namespace gpumem::probe {

class CublasLibrary {
 public:
  // dlopen of libcublas.so.13, then libcublas.so.12 and libcublas.so.
  static Result<std::unique_ptr<CublasLibrary>> load();
  ~CublasLibrary();
  CublasLibrary(const CublasLibrary&) = delete;
  CublasLibrary& operator=(const CublasLibrary&) = delete;

  // cublasCreate_v2 on the current device, bound to `stream` (cublasSetStream_v2).
  Status create_handle(cudaStream_t stream);
  // C = A * B for n x n column-major float matrices already on the device.
  Status sgemm(int n, const float* a, const float* b, float* c);
  // cublasGetVersion_v2 (needs a handle), e.g. 130100 for 13.1.0.
  Result<int> version() const;
  const std::string& soname() const { return soname_; }

 private:
  struct Api;
  CublasLibrary(void* lib, std::string soname, std::unique_ptr<Api> api);
  Status check(int status, std::string_view call) const;

  void* lib_;
  std::string soname_;
  std::unique_ptr<Api> api_;
  void* handle_ = nullptr;
};

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_CUBLAS_LIBRARY_H_
