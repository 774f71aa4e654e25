#include "probe/rank_runtime.h"

#include <fmt/format.h>

#include <cstdio>

namespace gpumem::probe {

Result<std::unique_ptr<RankRuntime>> RankRuntime::start(const RankEnv& env,
                                                        std::chrono::milliseconds timeout) {
  std::unique_ptr<RankRuntime> rt(new RankRuntime());
  rt->env_ = env;
  if (auto nvml = Nvml::load(); nvml.ok()) {
    rt->nvml_ = std::move(*nvml);
    if (auto d = rt->nvml_->device_for_cuda_ordinal(env.local_rank, process_env()); d.ok()) {
      rt->nvml_device_ = *d;
    } else {
      rt->nvml_note_ = d.status().message();
    }
  } else {
    rt->nvml_note_ = nvml.status().message();
  }
  if (!rt->nvml_note_.empty()) rt->log("NVML readings will be absent: " + rt->nvml_note_);
  rt->device_ = std::make_unique<CudaDevice>(env.local_rank, timeout);

  ExchangeOptions ex;
  ex.rank = env.rank;
  ex.world_size = env.world_size;
  ex.master_addr = env.master_addr;
  ex.master_port = env.master_port;
  ex.timeout = timeout;
  auto exchange = HostExchange::connect(ex);
  if (!exchange.ok()) return exchange.status();
  rt->exchange_ = std::move(*exchange);
  rt->comm_ = std::make_unique<NcclComm>(*rt->exchange_, *rt->device_, process_env());
  rt->sampler_ = std::make_unique<Sampler>(rt->nvml_.get(), rt->nvml_device_, *rt->device_);
  return rt;
}

RankRuntime::~RankRuntime() {
  // Communicators before the device: graphs and NCCL buffers live on it.
  comm_.reset();
  device_.reset();
}

void RankRuntime::log(std::string_view message) const {
  std::fprintf(stderr, "[gpumem-probe rank %d/%d GPU %d] %.*s\n", env_.rank, env_.world_size,
               env_.local_rank, static_cast<int>(message.size()), message.data());
}

Status RankRuntime::shutdown() {
  Status s = comm_->shutdown();
  device_->release_all();
  if (s.ok()) s = device_->health();
  return s;
}

}  // namespace gpumem::probe
