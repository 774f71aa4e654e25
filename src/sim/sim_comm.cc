#include "sim/sim_comm.h"

#include <algorithm>

#include "nccl/nccl_graph_capture.h"

namespace gpumem {

SimComm::SimComm(int rank, int world_size, SimDevice& device, Rendezvous& rendezvous,
                 const SimLinks& links, const NcclConstants& constants)
    : rank_(rank),
      world_size_(world_size),
      device_(device),
      rendezvous_(rendezvous),
      links_(links),
      constants_(constants) {}

Status SimComm::allocate_records(const NcclAllocationList& list) {
  for (const NcclAllocation& a : list) {
    if (a.allocator == NcclAllocator::kDriver) {
      GPUMEM_RETURN_IF_ERROR(device_.charge_driver(a.charged * a.count, Category::kCommunication,
                                                   "NCCL " + describe(a)));
      continue;
    }
    for (int i = 0; i < a.count; ++i) {
      Result<DevicePtr> p = device_.malloc(a.charged, Category::kCommunication);
      if (!p.ok()) {
        return Status(p.status().code(), "NCCL " + describe(a) + ": " + p.status().message());
      }
      if (a.transient) device_.free(*p);
    }
  }
  return {};
}

Status SimComm::allocate_phase(const NcclPlan& plan, NcclPhase phase) {
  NcclAllocationList selected;
  for (const NcclAllocation& a : plan.allocations) {
    if (a.phase == phase) selected.add(a);
  }
  return allocate_records(selected);
}

Result<CommunicatorId> SimComm::create_communicator(const std::vector<int>& ranks,
                                                    const NcclSettings& settings) {
  auto me = std::find(ranks.begin(), ranks.end(), rank_);
  if (me == ranks.end()) return internal_error("rank is not in the communicator it creates");
  NcclCommInput input;
  input.nranks = static_cast<int>(ranks.size());
  input.position = static_cast<int>(me - ranks.begin());
  input.interconnect = links_.interconnect;
  input.compute_capability = links_.compute_capability;
  input.resident_threads = links_.resident_threads;
  input.first_in_process = comms_.empty();
  input.first_launch_in_process = !launched_kernel_ && input.nranks > 1;
  input.settings = settings;
  Result<NcclPlan> plan = plan_communicator(input, constants_);
  if (!plan.ok()) return plan.status();
  GPUMEM_RETURN_IF_ERROR(device_.init_context());
  if (plan->kernel_image > bytes(0)) {
    GPUMEM_RETURN_IF_ERROR(
        device_.charge_driver(plan->kernel_image, Category::kCommunication, "NCCL kernel image"));
  }
  if (plan->init_overhead > bytes(0)) {
    GPUMEM_RETURN_IF_ERROR(device_.charge_driver(plan->init_overhead, Category::kCommunication,
                                                 "NCCL init beyond its allocations"));
  }
  GPUMEM_RETURN_IF_ERROR(allocate_phase(*plan, NcclPhase::kInit));
  // ncclCommInitRank is collective: every rank of the world reaches this point.
  GPUMEM_RETURN_IF_ERROR(rendezvous_.barrier());
  Communicator c;
  c.plan = std::move(*plan);
  c.multi_node = links_.nodes > 1;
  comms_.push_back(std::move(c));
  return CommunicatorId{static_cast<int>(comms_.size()) - 1};
}

Status SimComm::all_reduce(CommunicatorId id, DevicePtr buffer, Bytes size) {
  if (id.index < 0 || id.index >= static_cast<int>(comms_.size())) {
    return internal_error("all_reduce on an unknown communicator");
  }
  Communicator& c = comms_[static_cast<size_t>(id.index)];
  if (c.plan.nranks > 1 && !launched_kernel_ && c.plan.launch_stack_growth > bytes(0)) {
    GPUMEM_RETURN_IF_ERROR(device_.charge_driver(
        c.plan.launch_stack_growth, Category::kCommunication, "NCCL kernel stack reservation"));
  }
  if (c.plan.nranks > 1) launched_kernel_ = true;
  if (!c.ring_connected) {
    GPUMEM_RETURN_IF_ERROR(allocate_phase(c.plan, NcclPhase::kFirstRingCollective));
    c.ring_connected = true;
  }
  if (c.multi_node && !c.tree_connected) {
    GPUMEM_RETURN_IF_ERROR(allocate_phase(c.plan, NcclPhase::kFirstTreeCollective));
    c.tree_connected = true;
  }
  if (device_.capturing()) {
    NcclCapturedAllReduce captured;
    captured.launches_before = c.captured_launches;
    Result<NcclAllocationList> extra = plan_graph_capture(c.plan, captured, constants_);
    if (!extra.ok()) return extra.status();
    GPUMEM_RETURN_IF_ERROR(allocate_records(*extra));
    c.captured_launches += captured.launches;
  }
  (void)buffer;
  (void)size;
  // No meeting with the other simulated ranks: an all-reduce synchronises its communicator's
  // ranks only, and pipeline stages with different layer counts make different numbers of
  // them (a world-wide meeting here paired one stage's all-reduce with another's MIN).
  return {};
}

Result<Bytes> SimComm::min_over_world(Bytes local, bool as_float32) {
  Result<std::int64_t> m = rendezvous_.min((as_float32 ? through_float32(local) : local).value());
  if (!m.ok()) return m.status();
  return bytes(*m);
}

Result<std::int64_t> SimComm::min_over_world(std::int64_t local) { return rendezvous_.min(local); }

Result<std::vector<IpcHandle>> SimComm::all_gather(const std::vector<int>& ranks,
                                                   const IpcHandle& mine) {
  GPUMEM_RETURN_IF_ERROR(rendezvous_.barrier());
  // Peers of a simulated rank export buffers of the same size; opening them costs what the
  // device model says, whoever exported them.
  return std::vector<IpcHandle>(ranks.size(), mine);
}

Status SimComm::barrier() { return rendezvous_.barrier(); }

const NcclPlan* SimComm::plan(CommunicatorId comm) const {
  if (comm.index < 0 || comm.index >= static_cast<int>(comms_.size())) return nullptr;
  return &comms_[static_cast<size_t>(comm.index)].plan;
}

}  // namespace gpumem
