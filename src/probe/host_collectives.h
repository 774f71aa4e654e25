// The typed collectives of the Comm seam, built on the byte-level HostExchange: a MIN of an
// integer over all ranks and an all-gather of IPC handles. Kept apart from NCCL so that they
// are tested without a GPU. Integers travel as 8 little-endian bytes, an IPC handle as its 64
// opaque bytes followed by the exported allocation's size.
#ifndef GPUMEM_PROBE_HOST_COLLECTIVES_H_
#define GPUMEM_PROBE_HOST_COLLECTIVES_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "device/device.h"
#include "probe/host_exchange.h"

namespace gpumem::probe {

// MIN of `local` over all world ranks.
Result<std::int64_t> min_over_world(HostExchange& ex, std::string_view tag, std::int64_t local);

// Every rank in `ranks` contributes its handle; result indexed by position in `ranks`.
Result<std::vector<IpcHandle>> all_gather_ipc_handles(HostExchange& ex, std::string_view tag,
                                                      std::span<const int> ranks,
                                                      const IpcHandle& mine);

std::string encode_ipc_handle(const IpcHandle& h);
Result<IpcHandle> decode_ipc_handle(std::string_view wire);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_HOST_COLLECTIVES_H_
