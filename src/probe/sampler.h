// Reads a rank's GPU memory from every source at once (see sample.h for the fields).
//
// cudaMemGetInfo is read only once the device has a context: calling it earlier would
// create the context, and the probe's first sample exists to measure the memory *before*
// the context. NVML is read whenever it is loaded.
#ifndef GPUMEM_PROBE_SAMPLER_H_
#define GPUMEM_PROBE_SAMPLER_H_

#include "probe/cuda_device.h"
#include "probe/nvml.h"
#include "probe/sample.h"

namespace gpumem::probe {

class Sampler {
 public:
  // `nvml` may be null (no NVML on the machine); `device` is this rank's GPU.
  Sampler(const Nvml* nvml, Nvml::Device nvml_device, const CudaDevice& device)
      : nvml_(nvml), nvml_device_(nvml_device), device_(device) {}

  Sample read() const;

 private:
  const Nvml* nvml_;
  Nvml::Device nvml_device_;
  const CudaDevice& device_;
};

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_SAMPLER_H_
