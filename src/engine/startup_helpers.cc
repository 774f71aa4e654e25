#include "engine/startup_helpers.h"

namespace gpumem {

RankGroups rank_groups(int rank, int tp, int pp, int replicas) {
  const int replica_size = tp * pp;
  const int replica_base = rank / replica_size * replica_size;
  const int stage = rank % replica_size / tp;
  const int tp_rank = rank % tp;
  RankGroups g;
  for (int t = 0; t < tp; ++t) g.tp.push_back(replica_base + stage * tp + t);
  for (int s = 0; s < pp; ++s) g.pp.push_back(replica_base + s * tp + tp_rank);
  for (int r = 0; r < replicas; ++r) {
    g.dp.push_back(r * replica_size + rank % replica_size);
    for (int t = 0; t < tp; ++t)
      g.stage_across_replicas.push_back(r * replica_size + stage * tp + t);
  }
  return g;
}

Status pynccl_warm_up(RankEnv& env, CommunicatorId comm) {
  GPUMEM_RETURN_IF_ERROR(env.device.use_pytorch_resource(PytorchResource::kAtenModule));
  Result<BlockHandle> t = env.allocator.allocate(bytes(4), Category::kCommunication);
  if (!t.ok()) return t.status();
  Result<DevicePtr> p = env.allocator.address(*t);
  if (!p.ok()) return p.status();
  GPUMEM_RETURN_IF_ERROR(env.comm.all_reduce(comm, *p, bytes(4)));
  return env.allocator.free(*t);
}

}  // namespace gpumem
