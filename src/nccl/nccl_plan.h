// The memory model of one rank's NCCL communicator: which device allocations
// ncclCommInitRank and the first collectives make, in order, and what the first
// communicator of a process adds to the CUDA context.
//
// The model follows NCCL 2.28 step by step:
//  * init (init.cc initTransportsRank): channel metadata for every collective and p2p
//    channel (channel.cc initChannel, three device allocations each), the device-side
//    communicator (devCommSetup), and — only when connecting eagerly — the ring and tree
//    connections plus the "local net proxy" shared buffer;
//  * eager vs lazy: `comm->runtimeConn = cuMemSupport && NCCL_RUNTIME_CONNECT`, so with
//    NCCL_CUMEM_ENABLE=0 NCCL always connects at init; otherwise ring connections come with
//    the first ring collective and tree connections with the first tree collective
//    (enqueue.cc, per algorithm);
//  * a P2P connection costs the receiver align(header + LL + LL128 + SIMPLE, 2 MiB) and the
//    sender align(header, 2 MiB) (p2p.cc); P2P read mode moves SIMPLE to the sender; SHM
//    connections live in host memory and cost the GPU nothing;
//  * with cuMem every device allocation is rounded up to the allocation granularity
//    (alloc.h ncclCuMemAlloc), which makes the tiny per-channel tables cost 2 MiB each;
//  * the first communicator of a process also grows the CUDA context: NCCL's kernels at
//    init, and the stack they need for every resident thread at its first collective;
//  * init also takes device memory that NCCL logs no allocation for (measured by the probe):
//    per communicator, plus more for the first one of a process;
//  * without cuMem, the first P2P communicator of a process exports a throw-away CUDA_IPC_MIN
//    buffer to check legacy IPC (p2p.cc p2pCanConnect): a transient record, peak only.
// Which collective uses the ring or the tree (a tuning decision by message size) is the
// caller's business: it applies the kFirstRingCollective / kFirstTreeCollective records
// when its first collective of that algorithm runs. Pure and heap-free.
#ifndef GPUMEM_NCCL_NCCL_PLAN_H_
#define GPUMEM_NCCL_NCCL_PLAN_H_

#include "core/status.h"
#include "core/units.h"
#include "nccl/nccl_allocation.h"
#include "nccl/nccl_comm_input.h"
#include "nccl/nccl_constants.h"
#include "nccl/nccl_topology.h"

namespace gpumem {

// The protocol buffer sizes of every connection (comm->buffSizes) after NCCL_*_BUFFSIZE.
struct NcclBufferSizes {
  Bytes ll;
  Bytes ll128;
  Bytes simple;
};

struct NcclPlan {
  int nranks = 1;
  int position = 0;
  NcclTopology topology;
  bool cumem = false;            // allocations go through cuMem (NCCL_CUMEM_ENABLE)
  bool runtime_connect = false;  // connections made lazily, at the first collective
  NcclBufferSizes buffers;
  Bytes p2p_chunk;  // comm->p2pChunkSize (init.cc computeBuffSizes)
  // Device bytes of one connection before allocator rounding; zero for SHM.
  Bytes recv_connection;
  Bytes send_connection;
  // Tree connections per channel that the ring has not already made (same peer, same
  // direction), for this rank's position in the chain.
  int tree_recv_per_channel = 0;
  int tree_send_per_channel = 0;
  // Charged to the CUDA context, once per process: NCCL's device code at the first
  // communicator's init, and the stack reservation NCCL kernels need at the first collective
  // that launches one (whichever algorithm it runs). Zero when not this communicator's turn.
  Bytes kernel_image;
  Bytes launch_stack_growth;
  // Charged to the device at init beyond NCCL's allocations and the kernel image: the
  // per-communicator overhead, and for the first communicator of a process the per-process
  // overhead and (when no module was loaded before) the context's first module load.
  Bytes init_overhead;
  NcclAllocationList allocations;

  Bytes device_bytes() const { return allocations.total(); }
  Bytes device_bytes(NcclPhase phase) const { return allocations.total(phase); }
};

// Plans `input`'s communicator. Fails on inputs NCCL would reject or gpumem does not model
// (see resolve_topology), on non-positive buffer sizes, and, for the first communicator of a
// process, on a compute capability libnccl carries no kernel image for; and on a missing
// resident-thread count when its first collective is the process's first NCCL launch.
Result<NcclPlan> plan_communicator(const NcclCommInput& input,
                                   const NcclConstants& k = NcclConstants{});

}  // namespace gpumem

#endif  // GPUMEM_NCCL_NCCL_PLAN_H_
