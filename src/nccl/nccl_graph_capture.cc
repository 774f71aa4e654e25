#include "nccl/nccl_graph_capture.h"

#include <fmt/format.h>

namespace gpumem {

namespace {

// What `added` more bytes cost a store that grows in `step`s and already holds `before`.
Bytes growth(Bytes before, Bytes added, Bytes step) {
  return round_up(before + added, step) - round_up(before, step);
}

}  // namespace

Result<NcclAllocationList> plan_graph_capture(const NcclPlan& plan,
                                              const NcclCapturedAllReduce& capture,
                                              const NcclConstants& k) {
  if (capture.launches < 1 || capture.per_launch < 1 || capture.distinct_buffers < 1 ||
      capture.launches_before < 0) {
    return invalid_input(fmt::format(
        "a captured all-reduce needs positive counts, got {} launches x {} per launch, {} "
        "buffers, {} launches before",
        capture.launches, capture.per_launch, capture.distinct_buffers, capture.launches_before));
  }
  NcclAllocationList list;
  const NcclTopology& t = plan.topology;

  // Graph memory of the launches' nodes, growing in steps across the communicator's captures
  // (calibrated, see NcclConstants::captured_launch_graph_memory).
  NcclAllocation graph;
  graph.kind = NcclAllocationKind::kCapturedLaunchGraph;
  graph.phase = NcclPhase::kGraphCapture;
  graph.allocator = NcclAllocator::kDriver;
  graph.request = k.captured_launch_graph_memory * capture.launches;
  graph.charged = growth(k.captured_launch_graph_memory * capture.launches_before, graph.request,
                         k.graph_memory_step);
  if (graph.charged > bytes(0)) list.add(graph);

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
    // live (release threshold ~0), so the pool holds all of them and grows in steps.
    NcclAllocation a;
    a.kind = NcclAllocationKind::kPersistentWork;
    a.phase = NcclPhase::kGraphCapture;
    a.allocator = NcclAllocator::kMemPool;
    a.request = work * capture.launches;
    a.charged = growth(work * capture.launches_before, a.request, k.mem_pool_granularity);
    a.count = 1;
    if (a.charged > bytes(0)) list.add(a);
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
