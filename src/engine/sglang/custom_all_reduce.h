// SGLang's custom all-reduce (the CUDA IPC implementation, default on CUDA up to v0.5.11):
// when it is on, and the buffers it creates at start-up.
//
// sglang v0.5.9 python/sglang/srt/distributed/device_communicators/custom_all_reduce.py
// CustomAllreduce.__init__ and sgl-kernel csrc/allreduce/custom_all_reduce.cuh.
#ifndef GPUMEM_ENGINE_SGLANG_CUSTOM_ALL_REDUCE_H_
#define GPUMEM_ENGINE_SGLANG_CUSTOM_ALL_REDUCE_H_

#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "core/status.h"
#include "core/units.h"
#include "device/comm.h"
#include "device/device.h"

namespace gpumem::sglang {

struct CustomAllReduceConditions {
  int group_size = 1;
  bool spans_nodes = false;
  bool full_nvlink = false;        // every pair of the group NVLink-connected
  bool peer_to_peer = true;        // CUDA P2P works between the GPUs (gpu_p2p_access_check)
  bool disabled_by_flag = false;   // --disable-custom-all-reduce
  bool pcie_gate_patched = false;  // patch custom-all-reduce-on-pcie
};

// Whether CustomAllreduce is created, and if not, SGLang's reason (its own log wording).
struct CustomAllReduceDecision {
  bool enabled = false;
  std::string reason;
};

CustomAllReduceDecision decide_custom_all_reduce(const CustomAllReduceConditions& c);

// Sizes of its buffers (custom_all_reduce.py _MAX_CAR_SIZE; custom_all_reduce.cuh Signal).
struct CustomAllReduceSizes {
  Bytes max_size = mib(8);      // _MAX_CAR_SIZE = 8192 * 1024 on CUDA
  Bytes signal = bytes(3'456);  // sizeof(Signal): 36x8 + 2x36x8 uint32, 128-aligned
  Bytes rank_data = mib(8);     // torch.empty(8 * 1024 * 1024, dtype=uint8)
};

// Creates the buffers on one rank, as CustomAllreduce.__init__ does: the meta buffer
// (signal + scratch) and the input buffer as raw cudaMalloc, exported and opened on every
// peer of `group`, then rank_data through PyTorch's allocator. The allocations stay for the
// life of the engine.
Status create_custom_all_reduce(Device& device, Comm& comm, CachingAllocator& allocator,
                                const std::vector<int>& group,
                                const CustomAllReduceSizes& sizes = {});

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_CUSTOM_ALL_REDUCE_H_
