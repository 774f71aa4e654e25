// vLLM's all-reduce helpers of a TP group that hold device memory from start-up: the custom
// all-reduce (CUDA IPC buffers) and torch's symmetric-memory communicator.
//
// vllm distributed/device_communicators/cuda_communicator.py CudaCommunicator.__init__
// creates, for a group whose name contains "tp": the PyNccl communicator, then the
// symmetric-memory communicator (VLLM_ALLREDUCE_USE_SYMM_MEM), then CustomAllreduce, whose
// buffer shrinks to the symmetric-memory table when that communicator is active
// (custom_all_reduce.py CustomAllreduce.__init__, all_reduce_utils.py
// CUSTOM_ALL_REDUCE_MAX_SIZES and SYMM_MEM_ALL_REDUCE_MAX_SIZES, csrc/custom_all_reduce.cuh
// Signal). Opened peer handles map the peers' memory and take none locally.
#ifndef GPUMEM_ENGINE_VLLM_CUSTOM_ALL_REDUCE_H_
#define GPUMEM_ENGINE_VLLM_CUSTOM_ALL_REDUCE_H_

#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "core/status.h"
#include "core/units.h"
#include "device/comm.h"
#include "device/device.h"

namespace gpumem::vllm {

struct TpGroupFacts {
  int group_size = 1;
  bool spans_nodes = false;
  bool fully_connected = false;     // NVLink between every pair (is_fully_connected via NVML)
  bool peer_to_peer = true;         // gpu_p2p_access_check
  int compute_capability = 0;       // 90 for 9.0
  bool disabled_by_flag = false;    // --disable-custom-all-reduce
  bool symm_mem_requested = false;  // VLLM_ALLREDUCE_USE_SYMM_MEM (or the version default)
};

// Whether a helper is created, its buffer size, and vLLM's reason when it is not.
struct AllReduceHelper {
  bool enabled = false;
  Bytes max_size;  // largest input (exclusive) it reduces; its buffer size
  std::string reason;
};

struct AllReducePlan {
  AllReduceHelper symm_mem;
  AllReduceHelper custom;
};

// The sizes and decisions for one TP group, in CudaCommunicator's order.
AllReducePlan plan_all_reduce(const TpGroupFacts& g);

// csrc/custom_all_reduce.cuh: sizeof(vllm::Signal) with kMaxBlocks = 36 — start and end
// flags of 36 x 8 uint32 each, aligned to 128 B, and 36 uint32 _flag (2560 B).
inline constexpr Bytes kSignalSize = bytes(2560);
// custom_all_reduce.py: rank_data = torch.empty(8 MiB, uint8), through the caching allocator.
inline constexpr Bytes kRankDataSize = mib(8);

// Creates the buffers on one rank: the symmetric-memory buffer (torch_symm_mem.empty of
// max_size bytes, exchanged with the peers at rendezvous), then CustomAllreduce's meta
// (Signal + max_size) and data (max_size) buffers as cudaMalloc + IPC, and rank_data.
Status create_all_reduce_buffers(Device& device, Comm& comm, CachingAllocator& allocator,
                                 const std::vector<int>& group, const AllReducePlan& plan);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_CUSTOM_ALL_REDUCE_H_
