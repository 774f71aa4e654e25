// One device allocation NCCL makes, and the fixed-capacity list the NCCL memory model
// returns them in.
//
// An `NcclAllocation` groups identical allocations (one per channel, for the per-channel
// kinds) so that a communicator is a dozen records, not hundreds. `request` is what NCCL
// passes to the allocator; `charged` is one allocation as it reaches the device: rounded up
// to the cuMem granularity when NCCL allocates through cuMem, left as the request for
// cudaMalloc (the simulated or real driver applies its own page rounding there), and already
// rounded for the stream-ordered pool and for driver memory (both grow in steps that the
// model applies itself). A transient record is freed again before its phase ends: it raises
// the peak, not what stays taken. Every size is `Bytes`.
#ifndef GPUMEM_NCCL_NCCL_ALLOCATION_H_
#define GPUMEM_NCCL_NCCL_ALLOCATION_H_

#include <array>
#include <cassert>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/units.h"

namespace gpumem {

// When the allocation happens: at ncclCommInitRank, at the first collective that runs the
// ring or the tree algorithm (lazy runtime connection), or when a collective is captured
// into a CUDA graph.
enum class NcclPhase : unsigned char {
  kInit,
  kFirstRingCollective,
  kFirstTreeCollective,
  kGraphCapture,
};

// Which allocator NCCL calls. nccl 2.28 alloc.h ncclCudaCalloc/ncclCudaCallocAsync pick cuMem
// when NCCL_CUMEM_ENABLE is on, cudaMalloc otherwise; enqueue.cc uses cudaMallocAsync on the
// communicator's memory pool for persistent work. kDriver is memory the CUDA driver takes on
// NCCL's behalf with no allocation to free (graph memory of captured launches).
enum class NcclAllocator : unsigned char { kCuMem, kCudaMalloc, kMemPool, kDriver };

enum class NcclAllocationKind : unsigned char {
  kSharedPeerTable,      // channel.cc initChannel sharedRes->devPeers[c]
  kPeerPointers,         // channel.cc initChannel channel->devPeers
  kRingUserRanks,        // channel.cc initChannel channel->devRingUserRanks
  kRingRecvBuffer,       // p2p.cc p2pRecvSetup, ring (prev -> me)
  kRingSendBuffer,       // p2p.cc p2pSendSetup, ring (me -> next)
  kTreeRecvBuffer,       // p2p.cc p2pRecvSetup, tree peers the ring did not connect
  kTreeSendBuffer,       // p2p.cc p2pSendSetup, tree peers the ring did not connect
  kNetProxyBuffer,       // net.cc sharedNetBuffersInit ("Connect to local net proxy")
  kKernelComm,           // init.cc devCommSetup devCommAndChans
  kRankToLocalRank,      // init.cc devCommSetup rankToLocalRank
  kPersistentWork,       // enqueue.cc uploadWork, captured launch whose work overflows the args
  kRegisteredPeerAddrs,  // p2p.cc ipcRegisterBuffer devPeerRmtAddrs (graph user-buffer
                         // registration)
  kLegacyIpcCheck,       // p2p.cc p2pCanConnect: a CUDA_IPC_MIN buffer exported once, freed
  kCapturedLaunchGraph,  // graph memory of captured NCCL launches (cudaGraphInstantiate)
};

struct NcclAllocation {
  NcclAllocationKind kind = NcclAllocationKind::kKernelComm;
  NcclPhase phase = NcclPhase::kInit;
  NcclAllocator allocator = NcclAllocator::kCudaMalloc;
  Bytes request;           // one allocation as NCCL requests it
  Bytes charged;           // one allocation as it reaches the device (see the file comment)
  int count = 1;           // identical allocations in this record
  int first_channel = -1;  // channel range of per-channel kinds; -1 when not per channel
  int last_channel = -1;
  bool transient = false;  // freed before the phase ends: counts toward the peak only

  // Bytes this record leaves taken: zero for a transient one.
  Bytes total() const { return transient ? bytes(0) : charged * count; }
};

// Short name of a kind, plural where one record holds one per channel:
// "ring recv buffers", "local net proxy shared buffer".
std::string_view allocation_label(NcclAllocationKind kind);

// "ring recv buffers ch 0..23: 24 x 10,485,760 B (cuMem)" — for reports and test messages;
// a transient record ends in "(cudaMalloc, freed at once)".
std::string describe(const NcclAllocation& allocation);

// The allocations of one plan, in the order NCCL makes them. Fixed capacity: a plan never
// holds more records than kinds it can emit, so building one does not touch the heap.
class NcclAllocationList {
 public:
  static constexpr std::size_t kCapacity = 16;

  void add(const NcclAllocation& allocation) {
    assert(size_ < kCapacity);
    items_[size_++] = allocation;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const NcclAllocation& operator[](std::size_t i) const { return items_[i]; }
  const NcclAllocation* begin() const { return items_.data(); }
  const NcclAllocation* end() const { return items_.data() + size_; }

  // Bytes left taken on the device by all records, or by the records of one phase
  // (transient records excluded).
  Bytes total() const;
  Bytes total(NcclPhase phase) const;

 private:
  std::array<NcclAllocation, kCapacity> items_{};
  std::size_t size_ = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_NCCL_NCCL_ALLOCATION_H_
