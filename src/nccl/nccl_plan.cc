#include "nccl/nccl_plan.h"

#include <fmt/format.h>

namespace gpumem {

namespace {

// One record; `charged` follows the allocator (see nccl_allocation.h).
NcclAllocation make_allocation(NcclAllocationKind kind, NcclPhase phase, NcclAllocator allocator,
                               Bytes request, int count, int first_channel, int last_channel,
                               const NcclConstants& k) {
  NcclAllocation a;
  a.kind = kind;
  a.phase = phase;
  a.allocator = allocator;
  a.request = request;
  // nccl 2.28 alloc.h ncclCuMemAlloc: ALIGN_SIZE(size, granularity) before cuMemCreate.
  a.charged = allocator == NcclAllocator::kCuMem ? round_up(request, k.cumem_granularity) : request;
  a.count = count;
  a.first_channel = first_channel;
  a.last_channel = last_channel;
  return a;
}

// nccl 2.28 channel.cc initChannel: three device tables for each channel in [first, last].
void add_channel_tables(NcclAllocationList& list, int first, int last, int nranks,
                        NcclAllocator allocator, const NcclConstants& k) {
  const int count = last - first + 1;
  if (count <= 0) return;
  // sharedRes->devPeers[c]: one ncclDevChannelPeer per rank (tpNRanks).
  list.add(make_allocation(NcclAllocationKind::kSharedPeerTable, NcclPhase::kInit, allocator,
                           k.dev_channel_peer * nranks, count, first, last, k));
  // channel->devPeers: nRanks + 1 (CollNet root) + localRanks (NVLS) pointers; one node,
  // so localRanks == nRanks.
  list.add(make_allocation(NcclAllocationKind::kPeerPointers, NcclPhase::kInit, allocator,
                           k.device_pointer * (2 * nranks + 1), count, first, last, k));
  // channel->devRingUserRanks: nRanks ints.
  list.add(make_allocation(NcclAllocationKind::kRingUserRanks, NcclPhase::kInit, allocator,
                           k.rank_entry * nranks, count, first, last, k));
}

// The libnccl cubin the driver loads for `compute_capability`: the highest target of the
// same major at or below it (SASS runs on later minors of its major).
Result<Bytes> kernel_image_for(int compute_capability, const NcclConstants& k) {
  const NcclKernelImage* best = nullptr;
  for (const NcclKernelImage& image : k.images()) {
    if (image.arch / 10 == compute_capability / 10 && image.arch <= compute_capability &&
        (best == nullptr || image.arch > best->arch)) {
      best = &image;
    }
  }
  if (best == nullptr) {
    return invalid_input(fmt::format("libnccl has no kernel image for compute capability {}.{}",
                                     compute_capability / 10, compute_capability % 10));
  }
  return best->size;
}

Result<Bytes> buffer_size(const std::optional<Bytes>& setting, Bytes fallback,
                          std::string_view variable) {
  const Bytes size = setting.value_or(fallback);
  if (size <= bytes(0)) {
    return invalid_input(fmt::format("{} must be positive, got {}", variable, format_bytes(size)));
  }
  return size;
}

}  // namespace

Result<NcclPlan> plan_communicator(const NcclCommInput& input, const NcclConstants& k) {
  Result<NcclTopology> topology = resolve_topology(input, k);
  if (!topology.ok()) return topology.status();
  const NcclSettings& settings = input.settings;

  NcclPlan plan;
  plan.nranks = input.nranks;
  plan.position = input.position;
  plan.topology = *topology;
  const NcclTopology& t = plan.topology;

  // nccl 2.28 init.cc computeBuffSizes: NCCL_*_BUFFSIZE replace the defaults as given.
  Result<Bytes> ll = buffer_size(settings.ll_buffsize, k.ll_buffsize, "NCCL_LL_BUFFSIZE");
  if (!ll.ok()) return ll.status();
  Result<Bytes> ll128 =
      buffer_size(settings.ll128_buffsize, k.ll128_buffsize, "NCCL_LL128_BUFFSIZE");
  if (!ll128.ok()) return ll128.status();
  Result<Bytes> simple = buffer_size(settings.buffsize, k.simple_buffsize, "NCCL_BUFFSIZE");
  if (!simple.ok()) return simple.status();
  plan.buffers = {*ll, *ll128, *simple};

  // nccl 2.28 init.cc computeBuffSizes: NVLink chunk for all-NVLink comms, PCI chunk
  // otherwise, capped so that NCCL_STEPS chunks fit in the SIMPLE buffer.
  plan.p2p_chunk = t.all_nvlink ? k.p2p_nvl_chunk : k.p2p_pci_chunk;
  if (plan.p2p_chunk * k.steps > plan.buffers.simple) {
    plan.p2p_chunk = plan.buffers.simple / k.steps;
  }

  plan.cumem = settings.cumem_enable.value_or(k.cumem_default);
  // nccl 2.28 init.cc initTransportsRank: runtimeConn = cuMemSupport && ncclParamRuntimeConnect().
  plan.runtime_connect = plan.cumem && settings.runtime_connect.value_or(k.runtime_connect_default);

  if (t.transport == NcclTransport::kP2p) {
    // nccl 2.28 p2p.cc p2pRecvSetup: ncclRecvMem + every protocol buffer (SIMPLE stays with
    // the sender in read mode), aligned to CUDA_IPC_MIN; p2pSendSetup: ncclSendMem (+ SIMPLE
    // in read mode), aligned the same way.
    Bytes recv = k.connection_header + plan.buffers.ll + plan.buffers.ll128;
    Bytes send = k.connection_header;
    if (t.p2p_read) {
      send += plan.buffers.simple;
    } else {
      recv += plan.buffers.simple;
    }
    plan.recv_connection = round_up(recv, k.ipc_alignment);
    plan.send_connection = round_up(send, k.ipc_alignment);
  } else {
    // nccl 2.28 shm.cc shmSendSetup/shmRecvSetup: buffers in host shared memory.
    plan.recv_connection = bytes(0);
    plan.send_connection = bytes(0);
  }

  // Single-node tree (graph/connect.cc ncclTopoPreset): a chain in ring order, up = previous
  // position, down = next (or the reverse, on half the channels: "Trees [6] -1/-1/-1->0->1"
  // in the H200 x2 log). Either way the tree connects both directions with both chain
  // neighbours; the ring already has recv-from-previous and send-to-next on every channel
  // (transport.cc ncclTransportP2pConnect skips connected peers), so the tree adds
  // recv-from-next (all but the last position) and send-to-previous (all but the first).
  // With two ranks both are ring peers already.
  if (input.nranks > 2) {
    plan.tree_recv_per_channel = input.position < input.nranks - 1 ? 1 : 0;
    plan.tree_send_per_channel = input.position > 0 ? 1 : 0;
  }

  plan.kernel_image = bytes(0);
  plan.launch_stack_growth = bytes(0);
  // Measured, not logged by NCCL (see NcclConstants): every init, and more for the first one.
  plan.init_overhead = k.communicator_init_overhead;
  if (input.first_in_process) {
    // nccl 2.28 enqueue.cc ncclInitKernelsForDevice: cudaFuncGetAttributes on every kernel
    // loads all of NCCL's device code into the context despite lazy loading.
    Result<Bytes> image = kernel_image_for(input.compute_capability, k);
    if (!image.ok()) return image.status();
    plan.kernel_image = *image;
    plan.init_overhead += k.process_init_overhead;
    if (!input.context_has_modules) plan.init_overhead += k.first_module_load;
  }
  // nccl 2.28 enqueue.cc: a one-rank collective runs as a local copy (ncclLaunchOneRank), so
  // only a multi-rank communicator launches NCCL kernels.
  if (input.first_launch_in_process && input.nranks > 1) {
    if (input.resident_threads <= 0) {
      return invalid_input(fmt::format(
          "the first NCCL kernel launch of a process needs the GPU's resident threads (SMs x "
          "max threads per SM) to size its stack, got {}",
          input.resident_threads));
    }
    // The driver sizes local memory for every resident thread and rounds the reservation to
    // its page (cuCtxSetLimit CU_LIMIT_STACK_SIZE: grown on launch, never shrunk).
    plan.launch_stack_growth =
        round_up(k.launch_stack_per_thread * input.resident_threads, k.local_memory_granularity);
  }

  const NcclAllocator allocator = plan.cumem ? NcclAllocator::kCuMem : NcclAllocator::kCudaMalloc;
  NcclAllocationList& list = plan.allocations;
  const int last_channel = t.channels - 1;

  // nccl 2.28 transport/p2p.cc p2pCanConnect: without cuMem, the first P2P check of a process
  // (the result is cached in a static) exports a CUDA_IPC_MIN buffer to see whether legacy
  // IPC works, and frees it; the 2.28.9 log shows "p2p.cc:183 Cuda Alloc Size 2097152" at init.
  if (input.first_in_process && !plan.cumem && input.nranks > 1 &&
      t.transport == NcclTransport::kP2p) {
    NcclAllocation check =
        make_allocation(NcclAllocationKind::kLegacyIpcCheck, NcclPhase::kInit,
                        NcclAllocator::kCudaMalloc, k.ipc_alignment, 1, -1, -1, k);
    check.transient = true;
    list.add(check);
  }

  // nccl 2.28 graph/paths.cc ncclTopoComputeP2pChannels runs first and initialises the p2p
  // channels beyond the collective ones; init.cc setupChannel then initialises the rest.
  add_channel_tables(list, t.channels, t.p2p_channels - 1, input.nranks, allocator, k);
  add_channel_tables(list, 0, last_channel, input.nranks, allocator, k);

  if (input.nranks > 1 && t.transport == NcclTransport::kP2p) {
    const NcclPhase ring_phase =
        plan.runtime_connect ? NcclPhase::kFirstRingCollective : NcclPhase::kInit;
    const NcclPhase tree_phase =
        plan.runtime_connect ? NcclPhase::kFirstTreeCollective : NcclPhase::kInit;
    // transport.cc ncclTransportRingConnect: recv from prev and send to next on every channel.
    list.add(make_allocation(NcclAllocationKind::kRingRecvBuffer, ring_phase, allocator,
                             plan.recv_connection, t.channels, 0, last_channel, k));
    list.add(make_allocation(NcclAllocationKind::kRingSendBuffer, ring_phase, allocator,
                             plan.send_connection, t.channels, 0, last_channel, k));
    // transport.cc ncclTransportTreeConnect: the connections the ring has not made.
    if (plan.tree_recv_per_channel > 0) {
      list.add(make_allocation(NcclAllocationKind::kTreeRecvBuffer, tree_phase, allocator,
                               plan.recv_connection, t.channels * plan.tree_recv_per_channel, 0,
                               last_channel, k));
    }
    if (plan.tree_send_per_channel > 0) {
      list.add(make_allocation(NcclAllocationKind::kTreeSendBuffer, tree_phase, allocator,
                               plan.send_connection, t.channels * plan.tree_send_per_channel, 0,
                               last_channel, k));
    }
  }

  if (!plan.runtime_connect) {
    // nccl 2.28 init.cc initTransportsRank "Connect to local net proxy" (eager path only,
    // whatever the transport and even for one rank) -> net.cc sharedNetBuffersInit: a device
    // buffer of p2pnChannels x NCCL_SHARED_STEPS x p2pChunkSize, through cuMem when enabled
    // (ncclP2pAllocateShareableBuffer), ncclCudaCalloc otherwise.
    list.add(make_allocation(NcclAllocationKind::kNetProxyBuffer, NcclPhase::kInit, allocator,
                             plan.p2p_chunk * (t.p2p_channels * k.shared_steps), 1, -1, -1, k));
  }

  // nccl 2.28 init.cc devCommSetup: the device communicator and its rank table.
  list.add(make_allocation(NcclAllocationKind::kKernelComm, NcclPhase::kInit, allocator,
                           k.kernel_comm_and_channels, 1, -1, -1, k));
  list.add(make_allocation(NcclAllocationKind::kRankToLocalRank, NcclPhase::kInit, allocator,
                           k.rank_entry * input.nranks, 1, -1, -1, k));
  return plan;
}

}  // namespace gpumem
