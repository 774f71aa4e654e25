// The device memory NCCL all-reduces add when they are captured into CUDA graphs.
//
// Three mechanisms in NCCL 2.28, all only while a stream is capturing:
//  * graph memory: every captured NCCL kernel launch adds a kernel node (with NCCL's 4 KiB
//    argument block) and the event nodes that join NCCL's stream to the capture; the probe
//    measures 64 KiB per launch, taken in 2 MiB steps (NcclConstants). The steps are per
//    communicator, so the caller says how many launches it captured before (`launches_before`);
//  * persistent work: a captured launch whose work structs do not fit in the 4 KiB kernel
//    arguments gets its own device buffer, cudaMallocAsync'd from the communicator's memory
//    pool and kept until the graph is destroyed (enqueue.cc finishPlan / uploadWork). One
//    all-reduce per launch always fits, so this only shows when many collectives are fused
//    into one launch (ncclGroupStart/End);
//  * graph user-buffer registration (NCCL_GRAPH_REGISTER=1, the default): an out-of-place
//    all-reduce with the SIMPLE protocol over P2P registers its receive buffer with the peers
//    (ring and tree alike) and keeps a device table of the peers' addresses (register/coll_reg.cc
//    ncclRegisterCollBuffers -> p2p.cc ipcRegisterBuffer), one per registered buffer. In-place
//    all-reduces (PyTorch's dist.all_reduce, SGLang's PyNccl) skip it; without cuMem it needs a
//    cudaMalloc'd buffer and NCCL_LEGACY_CUDA_REGISTER=1, which gpumem does not model.
// Pure and heap-free.
#ifndef GPUMEM_NCCL_NCCL_GRAPH_CAPTURE_H_
#define GPUMEM_NCCL_NCCL_GRAPH_CAPTURE_H_

#include "core/status.h"
#include "nccl/nccl_allocation.h"
#include "nccl/nccl_constants.h"
#include "nccl/nccl_plan.h"

namespace gpumem {

// All-reduces captured on one communicator.
struct NcclCapturedAllReduce {
  int launches = 1;    // captured NCCL kernel launches
  int per_launch = 1;  // all-reduces fused into each launch
  // Launches like these that the communicator captured before, in this graph or earlier ones
  // still alive: graph memory and the persistent-work pool grow in steps across captures.
  int launches_before = 0;
  bool simple_protocol = false;  // NCCL chose SIMPLE (large messages); LL/LL128 never register
  bool in_place = true;          // sendbuff == recvbuff
  bool cumem_buffers = false;    // the user buffers were allocated through cuMem
                                 // (PyTorch expandable segments, ncclMemAlloc)
  int distinct_buffers = 1;      // distinct receive buffers registered across the captures
};

// The extra device memory of capturing `capture` on the communicator `plan` describes, all in
// phase kGraphCapture: what the capture adds on top of the `launches_before` launches. Records
// that add nothing are left out. Fails on non-positive counts or negative `launches_before`.
Result<NcclAllocationList> plan_graph_capture(const NcclPlan& plan,
                                              const NcclCapturedAllReduce& capture,
                                              const NcclConstants& k = NcclConstants{});

}  // namespace gpumem

#endif  // GPUMEM_NCCL_NCCL_GRAPH_CAPTURE_H_
