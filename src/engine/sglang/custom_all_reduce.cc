#include "engine/sglang/custom_all_reduce.h"

#include "engine/ipc_sharing.h"

namespace gpumem::sglang {

CustomAllReduceDecision decide_custom_all_reduce(const CustomAllReduceConditions& c) {
  // sglang v0.5.9 custom_all_reduce.py CustomAllreduce.__init__, in its order of checks.
  if (c.disabled_by_flag) return {false, "disabled by --disable-custom-all-reduce"};
  if (c.group_size == 1) return {false, "world size 1"};
  if (c.spans_nodes) {
    return {false, "Custom allreduce is disabled because this process group spans across nodes."};
  }
  if (c.group_size != 2 && c.group_size != 4 && c.group_size != 6 && c.group_size != 8) {
    return {false, "Custom allreduce is disabled due to an unsupported world size: " +
                       std::to_string(c.group_size) + ". Supported world sizes: [2, 4, 6, 8]."};
  }
  if (c.group_size > 2 && !c.full_nvlink && !c.pcie_gate_patched) {
    return {false,
            "Custom allreduce is disabled because it's not supported on more than two PCIe-only "
            "GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly."};
  }
  if (!c.peer_to_peer) {
    return {false,
            "Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P "
            "test failed. To silence this warning, specify disable_custom_all_reduce=True "
            "explicitly."};
  }
  return {true, c.full_nvlink ? "enabled (NVLink)" : "enabled (PCIe)"};
}

Status create_custom_all_reduce(Device& device, Comm& comm, CachingAllocator& allocator,
                                const std::vector<int>& group, const CustomAllReduceSizes& sizes) {
  // meta_ptrs = create_shared_buffer(meta_size() + max_size, uncached=True)
  GPUMEM_RETURN_IF_ERROR(create_shared_buffer(device, comm, group, sizes.signal + sizes.max_size));
  // buffer_ptrs = create_shared_buffer(max_size)
  GPUMEM_RETURN_IF_ERROR(create_shared_buffer(device, comm, group, sizes.max_size));
  // rank_data = torch.empty(8 MiB, uint8): through the caching allocator
  return allocator.allocate(sizes.rank_data, Category::kCommunication).status();
}

}  // namespace gpumem::sglang
