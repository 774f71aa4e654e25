#include "nccl/nccl_allocation.h"

#include <fmt/format.h>

namespace gpumem {

std::string_view allocation_label(NcclAllocationKind kind) {
  switch (kind) {
    case NcclAllocationKind::kSharedPeerTable:
      return "shared peer tables";
    case NcclAllocationKind::kPeerPointers:
      return "peer pointer tables";
    case NcclAllocationKind::kRingUserRanks:
      return "ring user ranks";
    case NcclAllocationKind::kRingRecvBuffer:
      return "ring recv buffers";
    case NcclAllocationKind::kRingSendBuffer:
      return "ring send buffers";
    case NcclAllocationKind::kTreeRecvBuffer:
      return "tree recv buffers";
    case NcclAllocationKind::kTreeSendBuffer:
      return "tree send buffers";
    case NcclAllocationKind::kNetProxyBuffer:
      return "local net proxy shared buffer";
    case NcclAllocationKind::kKernelComm:
      return "device comm and channels";
    case NcclAllocationKind::kRankToLocalRank:
      return "rank to local rank table";
    case NcclAllocationKind::kPersistentWork:
      return "persistent work buffers";
    case NcclAllocationKind::kRegisteredPeerAddrs:
      return "registered buffer peer addresses";
    case NcclAllocationKind::kLegacyIpcCheck:
      return "legacy IPC check buffer";
    case NcclAllocationKind::kCapturedLaunchGraph:
      return "captured launch graph memory";
  }
  return "unknown";
}

namespace {

std::string_view allocator_name(NcclAllocator allocator) {
  switch (allocator) {
    case NcclAllocator::kCuMem:
      return "cuMem";
    case NcclAllocator::kCudaMalloc:
      return "cudaMalloc";
    case NcclAllocator::kMemPool:
      return "memory pool";
    case NcclAllocator::kDriver:
      return "driver";
  }
  return "unknown";
}

}  // namespace

std::string describe(const NcclAllocation& allocation) {
  std::string channels;
  if (allocation.first_channel >= 0) {
    channels = fmt::format(" ch {}..{}", allocation.first_channel, allocation.last_channel);
  }
  return fmt::format("{}{}: {} x {} ({}{})", allocation_label(allocation.kind), channels,
                     allocation.count, format_bytes(allocation.charged),
                     allocator_name(allocation.allocator),
                     allocation.transient ? ", freed at once" : "");
}

Bytes NcclAllocationList::total() const {
  Bytes sum = bytes(0);
  for (const NcclAllocation& a : *this) sum += a.total();
  return sum;
}

Bytes NcclAllocationList::total(NcclPhase phase) const {
  Bytes sum = bytes(0);
  for (const NcclAllocation& a : *this) {
    if (a.phase == phase) sum += a.total();
  }
  return sum;
}

}  // namespace gpumem
