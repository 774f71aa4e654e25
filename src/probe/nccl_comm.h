// `Comm` with real NCCL: the probe's implementation of the second seam.
//
// One process per rank. Communicators are created with ncclCommInitRankConfig in
// non-blocking mode and then polled with ncclCommGetAsyncError: a blocking init cannot be
// interrupted, a non-blocking one can be given a timeout and aborted with ncclCommAbort,
// which NCCL documents as the way to survive a dead peer (nccl docs usage/communicators.rst,
// "Fault Tolerance"). The ncclUniqueId of each communicator goes from its first rank to the
// others over the host exchange, which also carries the host-side collectives (MIN, IPC
// handle all-gather, barrier).
//
// NCCL reads its NCCL_* variables once per process, so a communicator's NcclSettings must
// match the environment the rank was started with; create_communicator checks that and
// refuses a mismatch. The probe sets NCCL_NVLS_ENABLE=0 at start-up and never enables
// NVLink multicast.
//
// all_reduce: float32 sum, in place, on the device's stream. Inside a graph capture the
// collective is recorded into the graph (and its buffer kept alive with it); outside, the
// rank waits for it by polling the stream and NCCL's asynchronous error, with the timeout.
#ifndef GPUMEM_PROBE_NCCL_COMM_H_
#define GPUMEM_PROBE_NCCL_COMM_H_

#include <nccl.h>

#include <string>
#include <string_view>
#include <vector>

#include "device/comm.h"
#include "probe/cuda_device.h"
#include "probe/host_exchange.h"
#include "probe/rank_env.h"

namespace gpumem::probe {

class NcclComm final : public Comm {
 public:
  // `env` is how the rank's environment is read for the settings check.
  NcclComm(HostExchange& exchange, CudaDevice& device, EnvLookup env);
  // Aborts communicators that were not shut down (after the device's graphs are gone).
  ~NcclComm() override;
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  int rank() const override { return exchange_.rank(); }
  int world_size() const override { return exchange_.world_size(); }
  Result<CommunicatorId> create_communicator(const std::vector<int>& ranks,
                                             const NcclSettings& settings) override;
  Status all_reduce(CommunicatorId comm, DevicePtr buffer, Bytes size) override;
  Result<Bytes> min_over_world(Bytes local, bool as_float32) override;
  Result<std::int64_t> min_over_world(std::int64_t local) override;
  Result<std::vector<IpcHandle>> all_gather(const std::vector<int>& ranks,
                                            const IpcHandle& mine) override;
  Status barrier() override;

  // An all-reduce on a buffer the caller allocated (`size` a multiple of 4 bytes), so that a
  // measurement can keep the buffer out of the memory it measures.
  Status all_reduce_buffer(CommunicatorId comm, DevicePtr buffer, Bytes size);

  // Collective: destroys the device's graphs (they may hold NCCL work), then finalizes and
  // destroys every communicator, aborting any that does not finish within the timeout.
  Status shutdown();

  // ncclGetVersion of the libnccl.so.2 loaded at run time, e.g. 22809.
  static Result<int> runtime_version();

 private:
  struct Communicator {
    ncclComm_t comm = nullptr;  // null once aborted or destroyed
    std::string name;           // "communicator 0 over ranks [0, 1]"
  };

  Result<Communicator*> find(CommunicatorId id);
  // Polls ncclCommGetAsyncError until the communicator leaves ncclInProgress; on error or
  // timeout aborts it and says which peers have gone.
  Status wait_ready(Communicator& c, std::string_view call);
  // Waits for the stream after a collective, watching NCCL's asynchronous error as well.
  Status wait_stream(Communicator& c, std::string_view what);
  Status abort(Communicator& c, Status why);
  std::string peers_note() const;

  HostExchange& exchange_;
  CudaDevice& device_;
  EnvLookup env_;
  std::vector<Communicator> comms_;
  std::vector<DevicePtr> graph_buffers_;  // all-reduce buffers that captured graphs use
};

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_NCCL_COMM_H_
