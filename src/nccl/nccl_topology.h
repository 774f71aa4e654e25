// How NCCL 2.28 lays out one single-node communicator: the transport between ring
// neighbours, the number of channels, and the link facts that size its buffers.
//
// The topology search itself (graph/search.cc) depends on the box and cannot be derived
// from source; its result comes from NcclConstants' channel rules. Everything NCCL does with
// that result is reproduced here: duplication, NCCL_MIN/MAX_NCHANNELS (and *_CTAS), the
// power-of-two p2p channel count, P2P read mode and the P2P level check.
#ifndef GPUMEM_NCCL_NCCL_TOPOLOGY_H_
#define GPUMEM_NCCL_NCCL_TOPOLOGY_H_

#include <string_view>

#include "core/status.h"
#include "nccl/nccl_comm_input.h"
#include "nccl/nccl_constants.h"

namespace gpumem {

// Where a connection's buffers live: P2P buffers are GPU memory of the receiver (and the
// sender's small head), SHM buffers are host memory.
enum class NcclTransport : unsigned char { kP2p, kShm };

// NCCL's path types, in its own order (nccl 2.28 graph/topo.h PATH_LOC .. PATH_SYS): a P2P
// level admits every path up to and including it.
enum class NcclPathType : unsigned char {
  kLoc = 0,
  kNvl = 1,
  kNvb = 2,
  kC2c = 3,
  kPix = 4,
  kPxb = 5,
  kP2c = 6,
  kPxn = 7,
  kPhb = 8,
  kSys = 9,
};

struct NcclTopology {
  NcclTransport transport = NcclTransport::kP2p;
  NcclLinkClass link = NcclLinkClass::kNvlink;
  bool all_nvlink = false;  // init.cc comm->isAllNvlink: picks the NVLink p2p chunk size
  bool p2p_read = false;    // P2P read mode: SIMPLE buffer moves to the sender
  int search_channels = 0;  // what the topology search found (from the channel rules)
  int channels = 0;         // comm->nChannels: collective channels
  int p2p_channels = 0;     // comm->p2pnChannels: channels initialised for send/recv
};

// NCCL_P2P_LEVEL as ncclGetLevel reads it: a path name ("PHB", "SYS", ...) or the legacy
// digits 0..5. An unknown name is an error here (NCCL would silently ignore it, which would
// silently change the prediction).
Result<NcclPathType> parse_p2p_level(std::string_view text);

// The layout of `input`'s communicator. Fails on an input NCCL would reject or gpumem does
// not model: no ranks, a position outside the ring, NVLS on, an unknown NCCL_P2P_LEVEL, or
// links no channel rule covers.
Result<NcclTopology> resolve_topology(const NcclCommInput& input, const NcclConstants& k);

}  // namespace gpumem

#endif  // GPUMEM_NCCL_NCCL_TOPOLOGY_H_
