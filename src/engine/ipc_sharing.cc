#include "engine/ipc_sharing.h"

namespace gpumem {

Status open_peer_handles(Device& device, Comm& comm, const std::vector<int>& group,
                         DevicePtr mine) {
  Result<IpcHandle> handle = device.ipc_export(mine);
  if (!handle.ok()) return handle.status();
  Result<std::vector<IpcHandle>> handles = comm.all_gather(group, *handle);
  if (!handles.ok()) return handles.status();
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == comm.rank()) continue;
    GPUMEM_RETURN_IF_ERROR(device.ipc_open((*handles)[i]).status());
  }
  return {};
}

Status create_shared_buffer(Device& device, Comm& comm, const std::vector<int>& group, Bytes size) {
  Result<DevicePtr> mine = device.malloc(size, Category::kCommunication);
  if (!mine.ok()) return mine.status();
  return open_peer_handles(device, comm, group, *mine);
}

}  // namespace gpumem
