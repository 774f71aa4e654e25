// The device memory an NCCL all-reduce adds when it is captured into a CUDA graph.
//
// Two mechanisms in NCCL 2.28, both only while a stream is capturing:
//  * persistent work: a captured launch whose work structs do not fit in the 4 KiB kernel
//    arguments gets its own device buffer, cudaMallocAsync'd from the communicator's memory
//    pool and kept until the graph is destroyed (enqueue.cc finishPlan / uploadWork). One
//    all-reduce per launch always fits, so this only shows when many collectives are fused
//    into one launch (ncclGroupStart/End);
//  * graph user-buffer registration (NCCL_GRAPH_REGISTER=1, the default): an out-of-place
//    all-reduce with the SIMPLE protocol over P2P registers its receive buffer with the peers
//    (ring and tree alike) and keeps a device table of the peers' addresses (register/coll_reg.cc
//    ncclRegisterCollBuffers -> p2p.cc ipcRegisterBuffer), one per registered buffer. In-place
//    all-reduces (PyTorch's dist.all_reduce) skip it; without cuMem it needs a cudaMalloc'd
//    buffer and NCCL_LEGACY_CUDA_REGISTER=1, which gpumem does not model.
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
  int launches = 1;              // captured NCCL kernel launches
  int per_launch = 1;            // all-reduces fused into each launch
  bool simple_protocol = false;  // NCCL chose SIMPLE (large messages); LL/LL128 never register
  bool in_place = true;          // sendbuff == recvbuff
  bool cumem_buffers = false;    // the user buffers were allocated through cuMem
                                 // (PyTorch expandable segments, ncclMemAlloc)
  int distinct_buffers = 1;      // distinct receive buffers registered across the captures
};

// The extra device allocations of capturing `capture` on the communicator `plan` describes,
// all in phase kGraphCapture. Fails on non-positive counts.
Result<NcclAllocationList> plan_graph_capture(const NcclPlan& plan,
                                              const NcclCapturedAllReduce& capture,
                                              const NcclConstants& k = NcclConstants{});

}  // namespace gpumem

#endif  // GPUMEM_NCCL_NCCL_GRAPH_CAPTURE_H_
