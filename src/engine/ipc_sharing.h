// Sharing device memory with the peers of a group through CUDA IPC, as both engines' custom
// all-reduce does (sglang v0.5.9 and vllm custom_all_reduce.py create_shared_buffer and
// register_graph_buffers): export the handle of one's own allocation, all-gather the handles
// over the CPU group, open every peer's. Opening maps the peer's pages and takes no memory
// locally (H200 facts: 0 B for 1, 8 and 64 handles).
#ifndef GPUMEM_ENGINE_IPC_SHARING_H_
#define GPUMEM_ENGINE_IPC_SHARING_H_

#include <vector>

#include "core/status.h"
#include "core/units.h"
#include "device/comm.h"
#include "device/device.h"

namespace gpumem {

// Exports `mine`, exchanges handles with `group` (this rank included) and opens the peers'.
Status open_peer_handles(Device& device, Comm& comm, const std::vector<int>& group, DevicePtr mine);

// cudaMalloc of `size` (communication memory), then shared with the group as above.
Status create_shared_buffer(Device& device, Comm& comm, const std::vector<int>& group, Bytes size);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_IPC_SHARING_H_
