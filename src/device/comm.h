// Communication between the ranks of one start-up: the second seam of gpumem.
//
// An engine's ranks talk in two ways at start-up, and both matter for memory:
//  * NCCL communicators (torch's process groups, SGLang's PyNccl, vLLM's PyNccl) take GPU
//    memory for their channels' buffers, at creation or at their first collective;
//  * host-side exchanges (gloo in the engines) carry small values: the MIN of free memory,
//    IPC handles of custom all-reduce buffers, PP token counts. They take no GPU memory but
//    synchronise the ranks, so a rank that failed stops the others at the next exchange.
//
// The simulator implements this with a memory model of NCCL (src/sim/sim_comm.h); the probe
// with real NCCL (src/probe). Every call is collective over the ranks it names: all of them
// make it, in the same order.
#ifndef GPUMEM_DEVICE_COMM_H_
#define GPUMEM_DEVICE_COMM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/units.h"
#include "device/device.h"

namespace gpumem {

// The NCCL settings that change a communicator's memory, from NCCL_* environment variables
// as the engine process sees them. Unset fields mean NCCL's own default.
struct NcclSettings {
  std::optional<bool> cumem_enable;        // NCCL_CUMEM_ENABLE
  std::optional<bool> runtime_connect;     // NCCL_RUNTIME_CONNECT
  std::optional<Bytes> buffsize;           // NCCL_BUFFSIZE (Simple protocol)
  std::optional<Bytes> ll_buffsize;        // NCCL_LL_BUFFSIZE
  std::optional<Bytes> ll128_buffsize;     // NCCL_LL128_BUFFSIZE
  std::optional<int> min_channels;         // NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS
  std::optional<int> max_channels;         // NCCL_MAX_NCHANNELS / NCCL_MAX_CTAS
  std::optional<bool> p2p_disable;         // NCCL_P2P_DISABLE
  std::optional<std::string> p2p_level;    // NCCL_P2P_LEVEL
  std::optional<bool> nvls_enable;         // NCCL_NVLS_ENABLE (always off in gpumem runs)
};

// A communicator created by `Comm::create_communicator`.
struct CommunicatorId {
  int index = -1;
};

class Comm {
 public:
  virtual ~Comm() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;

  // ncclCommInitRank over `ranks` (world ranks, ascending; this rank among them). Memory
  // it takes at creation is charged to this rank's device under kCommunication.
  virtual Result<CommunicatorId> create_communicator(const std::vector<int>& ranks,
                                                     const NcclSettings& settings) = 0;

  // One in-place all-reduce (float32 sum) of `size` bytes at `buffer` on the communicator.
  // The first collective of a lazily connected communicator allocates its connections here.
  // Inside a graph capture it is recorded into the graph. A null `buffer` asks the
  // implementation for a scratch buffer of its own.
  virtual Status all_reduce(CommunicatorId comm, DevicePtr buffer, Bytes size) = 0;

  // Host-side MIN over all world ranks. With `as_float32`, each rank's value first goes
  // through float32, as `torch.tensor(x, dtype=float32)` does in SGLang.
  virtual Result<Bytes> min_over_world(Bytes local, bool as_float32) = 0;
  virtual Result<std::int64_t> min_over_world(std::int64_t local) = 0;

  // Host-side all-gather of IPC handles among `ranks`; result indexed by position in ranks.
  virtual Result<std::vector<IpcHandle>> all_gather(const std::vector<int>& ranks,
                                                    const IpcHandle& mine) = 0;

  // Host-side barrier over all world ranks.
  virtual Status barrier() = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_DEVICE_COMM_H_
