// Simulated communication: the `Comm` seam over the NCCL memory model (src/nccl).
//
// Creating a communicator plans it with `plan_communicator` for this rank's position and
// makes its init-phase allocations on the rank's SimDevice (cuMem allocations arrive rounded
// to the granularity; cudaMalloc ones are rounded by the device; a transient one is freed at
// once); NCCL's kernel image goes to the context of the process's first communicator, and
// the memory init takes without an NCCL allocation is charged to the driver. The first
// collective makes the ring connections (lazy runtime connection) and the first kernel launch
// grows the context's stack; a collective inside a graph capture adds what NCCL and the
// driver keep for captured work, counting the launches the communicator captured before.
//
// Algorithm choice: a single-node all-reduce is taken to run the ring algorithm, so tree
// connections are made only for multi-node communicators (gpumem's research could not
// confirm NCCL 2.28's single-node tuning choice for more than two ranks; with two ranks the
// tree and the ring use the same connections). Host-side exchanges and world-wide steps
// (communicator creation, MIN over the world, IPC handle exchange, barriers) go through a
// Rendezvous shared with the other simulated ranks; an all-reduce does not, as it involves
// only its communicator's ranks, which run the same program as this one.
#ifndef GPUMEM_SIM_SIM_COMM_H_
#define GPUMEM_SIM_SIM_COMM_H_

#include <optional>
#include <vector>

#include "device/comm.h"
#include "nccl/nccl_comm_input.h"
#include "nccl/nccl_constants.h"
#include "nccl/nccl_plan.h"
#include "sim/rendezvous.h"
#include "sim/sim_device.h"

namespace gpumem {

// What every simulated rank shares about the machine's links.
struct SimLinks {
  NcclInterconnect interconnect = NcclInterconnect::kNvlink;
  int compute_capability = 90;  // major * 10 + minor
  int resident_threads = 0;     // SMs x max threads per SM
  int nodes = 1;
};

class SimComm final : public Comm {
 public:
  SimComm(int rank, int world_size, SimDevice& device, Rendezvous& rendezvous,
          const SimLinks& links, const NcclConstants& constants);

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  Result<CommunicatorId> create_communicator(const std::vector<int>& ranks,
                                             const NcclSettings& settings) override;
  Status all_reduce(CommunicatorId comm, DevicePtr buffer, Bytes size) override;
  Result<Bytes> min_over_world(Bytes local, bool as_float32) override;
  Result<std::int64_t> min_over_world(std::int64_t local) override;
  Result<std::vector<IpcHandle>> all_gather(const std::vector<int>& ranks,
                                            const IpcHandle& mine) override;
  Status barrier() override;

  // The plan of a communicator this rank created, for reports.
  const NcclPlan* plan(CommunicatorId comm) const;

 private:
  struct Communicator {
    NcclPlan plan;
    bool ring_connected = false;
    bool tree_connected = false;
    bool multi_node = false;
    int captured_launches = 0;  // graph memory grows in steps across captures
  };

  Status allocate_phase(const NcclPlan& plan, NcclPhase phase);
  Status allocate_records(const NcclAllocationList& list);

  const int rank_;
  const int world_size_;
  SimDevice& device_;
  Rendezvous& rendezvous_;
  const SimLinks links_;
  const NcclConstants constants_;
  std::vector<Communicator> comms_;
  bool launched_kernel_ = false;
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_SIM_COMM_H_
