// Everything one probe rank runs on: its GPU (CudaDevice), its communicators (NcclComm), the
// host exchange with the other ranks, NVML and the sampler — built in the order the
// measurements need.
//
// Order matters: NVML is loaded and this rank's NVML device found before any CUDA call (so
// that the first sample shows the GPU without this process's context); the CUDA device is
// only named, not touched, until a step initialises it; the host exchange connects next, so
// that a rank that cannot reach the others fails before it takes GPU memory.
#ifndef GPUMEM_PROBE_RANK_RUNTIME_H_
#define GPUMEM_PROBE_RANK_RUNTIME_H_

#include <chrono>
#include <memory>
#include <string>

#include "probe/cuda_device.h"
#include "probe/host_exchange.h"
#include "probe/nccl_comm.h"
#include "probe/nvml.h"
#include "probe/rank_env.h"
#include "probe/sampler.h"

namespace gpumem::probe {

class RankRuntime {
 public:
  // `timeout` bounds every wait of the rank (connections, NCCL, streams).
  static Result<std::unique_ptr<RankRuntime>> start(const RankEnv& env,
                                                    std::chrono::milliseconds timeout);
  ~RankRuntime();

  const RankEnv& env() const { return env_; }
  CudaDevice& device() { return *device_; }
  NcclComm& comm() { return *comm_; }
  HostExchange& exchange() { return *exchange_; }
  const Nvml* nvml() const { return nvml_.get(); }
  Nvml::Device nvml_device() const { return nvml_device_; }
  // Why NVML is absent, when it is.
  const std::string& nvml_note() const { return nvml_note_; }
  const Sampler& sampler() const { return *sampler_; }

  // Prints "[gpumem-probe rank 1/2 GPU 1] message" to stderr.
  void log(std::string_view message) const;

  // Collective: NCCL communicators down (after the graphs), then the device's memory.
  Status shutdown();

 private:
  RankRuntime() = default;

  RankEnv env_;
  std::unique_ptr<Nvml> nvml_;
  Nvml::Device nvml_device_ = nullptr;
  std::string nvml_note_;
  std::unique_ptr<CudaDevice> device_;
  std::unique_ptr<HostExchange> exchange_;
  std::unique_ptr<NcclComm> comm_;
  std::unique_ptr<Sampler> sampler_;
};

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_RANK_RUNTIME_H_
