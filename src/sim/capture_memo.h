// The capture memo (issue 24): a memoized body (runtime/memoized_run.h; SGLang's CUDA-graph
// capture, three quarters of a sweep point) restored instead of replayed when it was already
// replayed with an equal key from a state it cannot tell apart from the present one.
//
// Why the key is complete. What the body does is fixed by its key (the engine's arguments:
// the requests it makes, in order, do not depend on any state) and by the answers it gets:
//  * from the allocator: which cached block serves each request, whether a block is split,
//    which neighbours a freed block merges with, and (through warm_up_twice) whether the
//    count of device allocations grew. Compared after the abstraction of
//    alloc/state_delta.h: the sizes and addresses of allocated blocks and of free blocks of a
//    default pool smaller than the body's smallest request of that pool (recorded on the
//    replay) are left out, as are addresses (only their order, kept by construction) and
//    counters (the body reads only a difference); everything else is equal. The allocator's
//    config is equal.
//  * from the device: every device call's answer is a function of the device's constants
//    (equal) and of its state but for the memory in use, every allocation's size and address
//    and the next address (all compared equal, apart from those); and of whether each charge
//    fits. The replay records its largest rise of the memory in use; a state with at least
//    that much free makes every charge fit, as it did on the replay. A replay on which any
//    charge did not fit (an allocation retried after releasing cached blocks counts) is not
//    stored; a body that fails is never stored, and a state with less free is replayed.
//  * from the other ranks: nothing. Only a run of one rank uses the memo, whose collectives
//    are a MIN over itself and keep no state; runs of several ranks (or several rank
//    classes, whose rendezvous would lose a participant) replay.
//  * addresses: the body reads none (the engine asks for memoization only when its body
//    makes no IPC export and no NCCL call with a pointer).
// What the restored state is: the allocator's by AllocatorStateDelta::apply; the device's is
// the present one plus the replay's differences (memory in use by category, the new
// allocations with their addresses moved by as much as the next address moved, the graph
// executables, flags and resources as the replay left them), and its peak rises as the
// replay's did. The free-memory readings are the replay's, moved by the difference of free
// memory between the two start states: the body's charges are the same.
//
// Shared by every thread of a run (simulate/simulate.h SimulationCache), at most 256 entries
// (capture_memo.cc kCapacity), found by key and canonical hash; entries are immutable once
// stored, so a thread restores from one outside the lock.
#ifndef GPUMEM_SIM_CAPTURE_MEMO_H_
#define GPUMEM_SIM_CAPTURE_MEMO_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/state_delta.h"
#include "runtime/memoized_run.h"
#include "sim/sim_device.h"

namespace gpumem {

struct MemoizedCapture;

class CaptureMemo {
 public:
  // The stored entries of `key` whose start state hashes as `now` does under their
  // abstraction (AllocatorStateDelta::canonical_hash).
  std::vector<std::shared_ptr<const MemoizedCapture>> candidates(
      const RunKey& key, const CachingAllocator::State& now);
  // Evicts the oldest entry when full.
  void store(std::shared_ptr<const MemoizedCapture> entry);

  void count(bool hit) { (hit ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed); }
  int hits() const { return hits_.load(); }
  int misses() const { return misses_.load(); }

 private:
  // The entries of one key (and so one abstraction: the requests, hence the smallest of each
  // pool, are the key's), by canonical hash.
  struct Group {
    std::unique_ptr<RunKey> key;
    AllocatorStateDelta::Visibility visibility;
    std::unordered_multimap<std::uint64_t, std::shared_ptr<const MemoizedCapture>> by_hash;
  };

  std::mutex mu_;
  std::vector<Group> groups_;
  std::deque<std::shared_ptr<const MemoizedCapture>> order_;  // oldest first
  std::atomic<int> hits_ = 0;
  std::atomic<int> misses_ = 0;
};

class SimMemoizedRuns final : public MemoizedRuns {
 public:
  // `device` and `allocator` are the rank's (the allocator over the device); without a `memo`,
  // or with `single_rank` false, every body runs.
  SimMemoizedRuns(SimDevice& device, CachingAllocator& allocator, CaptureMemo* memo,
                  bool single_rank)
      : device_(device), allocator_(allocator), memo_(memo), single_rank_(single_rank) {}

  Status run(const RunKey& key, const MemoizedBody& body, FreeReadings& readings) override;

 private:
  Status replay(const RunKey& key, const MemoizedBody& body, FreeReadings& readings,
                const CachingAllocator::State& before);

  SimDevice& device_;
  CachingAllocator& allocator_;
  CaptureMemo* memo_;
  bool single_rank_;
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_CAPTURE_MEMO_H_
