#include "nccl/nccl_graph_capture.h"

#include <fmt/format.h>

namespace gpumem {

Result<NcclAllocationList> plan_graph_capture(const NcclPlan& plan,
                                              const NcclCapturedAllReduce& capture,
                                              const NcclConstants& k) {
  if (capture.launches < 1 || capture.per_launch < 1 || capture.distinct_buffers < 1) {
    return invalid_input(fmt::format(
        "a captured all-reduce needs positive counts, got {} launches x {} per launch, {} "
        "buffers",
        capture.launches, capture.per_launch, capture.distinct_buffers));
  }
  NcclAllocationList list;
  const NcclTopology& t = plan.topology;

  // nccl 2.28 enqueue.cc finishPlan: kernel args hold ncclDevKernelArgs, one batch per
  // channel per group of up to 64 works (offsetBitset), and the work structs; if that fits
  // in ncclMaxKernelArgsSize the work travels in the arguments and needs no device memory.
  const int batches_per_channel = (capture.per_launch + k.works_per_batch - 1) / k.works_per_batch;
  const Bytes work = k.work_coll * capture.per_launch;
  const Bytes args =
      k.kernel_args_header + k.work_batch * (t.channels * batches_per_channel) + work;
  if (args > k.kernel_args_limit) {
    // nccl 2.28 enqueue.cc uploadWork: each captured launch keeps workBytes in a persistent
    // buffer from the communicator's pool, which never releases them back while the graphs
    // live (release threshold ~0), so the pool holds all of them.
    NcclAllocation a;
    a.kind = NcclAllocationKind::kPersistentWork;
    a.phase = NcclPhase::kGraphCapture;
    a.allocator = NcclAllocator::kMemPool;
    a.request = work * capture.launches;
    a.charged = round_up(a.request, k.mem_pool_granularity);
    a.count = 1;
    list.add(a);
  }

  // nccl 2.28 register/coll_reg.cc ncclRegisterCollBuffers: graph registration only for
  // SIMPLE, ring or tree, not in place, with every peer on P2P; p2p.cc ipcRegisterBuffer
  // exports cuMem-backed buffers (legacy IPC needs NCCL_LEGACY_CUDA_REGISTER=1).
  const bool registers = plan.cumem && capture.cumem_buffers && capture.simple_protocol &&
                         !capture.in_place && t.transport == NcclTransport::kP2p && plan.nranks > 1;
  if (registers) {
    // p2p.cc ipcRegisterBuffer: devPeerRmtAddrs, localRanks pointers per registered buffer,
    // through ncclCudaCallocAsync (cuMem here).
    NcclAllocation a;
    a.kind = NcclAllocationKind::kRegisteredPeerAddrs;
    a.phase = NcclPhase::kGraphCapture;
    a.allocator = NcclAllocator::kCuMem;
    a.request = k.device_pointer * plan.nranks;
    a.charged = round_up(a.request, k.cumem_granularity);
    a.count = capture.distinct_buffers;
    list.add(a);
  }
  return list;
}

}  // namespace gpumem
