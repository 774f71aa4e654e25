#include "probe/sampler.h"

#include <cuda_runtime_api.h>

namespace gpumem::probe {

Sample Sampler::read() const {
  Sample s = sample_nvml(nvml_, nvml_device_);
  if (device_.context_ready()) {
    std::size_t free = 0;
    std::size_t total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) {
      s.cuda_free = bytes(static_cast<std::int64_t>(free));
      s.cuda_total = bytes(static_cast<std::int64_t>(total));
    } else {
      (void)cudaGetLastError();
    }
  }
  return s;
}

}  // namespace gpumem::probe
