#include "engine/vllm/custom_all_reduce.h"

#include <algorithm>
#include <array>
#include <span>

#include "engine/ipc_sharing.h"

namespace gpumem::vllm {
namespace {

// One row of all_reduce_utils.py's tables: the size limit per world size 2, 4, 6, 8.
struct SizeRow {
  int compute_capability;
  std::array<Bytes, 4> by_world_size;
};

// vllm distributed/device_communicators/all_reduce_utils.py SYMM_MEM_ALL_REDUCE_MAX_SIZES.
constexpr SizeRow kSymmMemMax[] = {
    {90, {mib(64), mib(32), mib(64), mib(64)}},
    {100, {mib(8), mib(32), mib(128), mib(128)}},
    {103, {mib(4), mib(32), mib(32), mib(64)}},
};
// all_reduce_utils.py CUSTOM_ALL_REDUCE_MAX_SIZES, used while symmetric memory is active.
constexpr SizeRow kCustomMaxWithSymmMem[] = {
    {90, {mib(64), mib(32), kib(512), kib(256)}},
    {100, {mib(2), mib(2), mib(1), mib(1)}},
    {103, {mib(4), mib(4), mib(8), mib(4)}},
};
// custom_all_reduce.py CustomAllreduce.__init__ max_size default: 8192 * 1024.
constexpr Bytes kCustomDefaultMax = mib(8);

const SizeRow* row_for(std::span<const SizeRow> table, int cc) {
  for (const SizeRow& r : table) {
    if (r.compute_capability == cc) return &r;
  }
  return nullptr;
}

// Index of a supported world size (2, 4, 6, 8) in a row, or -1.
int world_size_index(int n) { return n == 2 ? 0 : n == 4 ? 1 : n == 6 ? 2 : n == 8 ? 3 : -1; }

constexpr char kSilence[] =
    " To silence this warning, specify disable_custom_all_reduce=True explicitly.";

}  // namespace

AllReducePlan plan_all_reduce(const TpGroupFacts& g) {
  AllReducePlan p;
  const int ws_index = world_size_index(g.group_size);
  // symm_mem.py SymmMemCommunicator.__init__: CUDA, a compute capability and world size of
  // its table; its multicast object needs NVLink between every pair.
  if (g.group_size > 1) {
    const SizeRow* symm = row_for(kSymmMemMax, g.compute_capability);
    if (!g.symm_mem_requested) {
      p.symm_mem.reason = "off (VLLM_ALLREDUCE_USE_SYMM_MEM=0)";
    } else if (symm == nullptr) {
      p.symm_mem.reason = "not on compute capability " + std::to_string(g.compute_capability / 10) +
                          "." + std::to_string(g.compute_capability % 10);
    } else if (ws_index < 0) {
      p.symm_mem.reason = "unsupported world size " + std::to_string(g.group_size);
    } else if (g.spans_nodes || !g.fully_connected) {
      p.symm_mem.reason = "no NVLink multicast between every pair";
    } else {
      p.symm_mem = {true, symm->by_world_size[static_cast<size_t>(ws_index)], "enabled"};
    }
  }
  // custom_all_reduce.py CustomAllreduce.__init__, in its order of checks.
  AllReduceHelper& c = p.custom;
  if (g.disabled_by_flag) {
    c.reason = "disabled by --disable-custom-all-reduce";
  } else if (g.group_size == 1) {
    c.reason = "world size 1";
  } else if (g.spans_nodes) {
    c.reason = "Custom allreduce is disabled because this process group spans across nodes.";
  } else if (ws_index < 0) {
    c.reason = "Custom allreduce is disabled due to an unsupported world size: " +
               std::to_string(g.group_size) + ". Supported world sizes: [2, 4, 6, 8]." + kSilence;
  } else if (g.group_size > 2 && !g.fully_connected) {
    c.reason = std::string(
                   "Custom allreduce is disabled because it's not supported on more than two "
                   "PCIe-only GPUs.") +
               kSilence;
  } else if (!g.peer_to_peer) {
    c.reason = std::string(
                   "Custom allreduce is disabled because your platform lacks GPU P2P capability "
                   "or P2P test failed.") +
               kSilence;
  } else {
    c.enabled = true;
    c.max_size = kCustomDefaultMax;
    c.reason = g.fully_connected ? "enabled (NVLink)" : "enabled (PCIe)";
    if (p.symm_mem.enabled) {
      const SizeRow* row = row_for(kCustomMaxWithSymmMem, g.compute_capability);
      c.max_size = std::min(c.max_size, row->by_world_size[static_cast<size_t>(ws_index)]);
    }
  }
  return p;
}

Status create_all_reduce_buffers(Device& device, Comm& comm, CachingAllocator& allocator,
                                 const std::vector<int>& group, const AllReducePlan& plan) {
  if (plan.symm_mem.enabled) {
    // torch_symm_mem.empty(max_size // 2, bfloat16), then rendezvous maps every peer's.
    GPUMEM_RETURN_IF_ERROR(create_shared_buffer(device, comm, group, plan.symm_mem.max_size));
  }
  if (!plan.custom.enabled) return {};
  GPUMEM_RETURN_IF_ERROR(
      create_shared_buffer(device, comm, group, kSignalSize + plan.custom.max_size));
  GPUMEM_RETURN_IF_ERROR(create_shared_buffer(device, comm, group, plan.custom.max_size));
  return allocator.allocate(kRankDataSize, Category::kCommunication).status();
}

}  // namespace gpumem::vllm
