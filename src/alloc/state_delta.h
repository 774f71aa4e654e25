// What a run of allocator requests did to a caching allocator's state, so that it can be
// replayed onto another state that the run cannot tell apart from the one it started in
// (sim/capture_memo.h, issue 24).
//
// A run whose requests are fixed in advance (sizes, order, frees; the same whatever the
// state) observes the state it starts in only through: the cached free blocks a request may
// take (the best fit of its pool, ties broken by address), the links of blocks it splits and
// merges, whether each device allocation fits, and the difference of the counters it reads.
// Two states are the same to such a run when they are equal after abstracting:
//  * the size and address of every allocated block (the run frees only its own blocks, and
//    reads no address; a split or merge touches an allocated neighbour's links only);
//  * the size and address of every free block of a default pool smaller than the smallest
//    request the run makes of that pool (never a best fit, never a neighbour of a block the
//    run holds: its neighbours are allocated);
//  * the address of every other block, whose order is kept: blocks of different segments
//    compare as their segments were allocated, and both states allocated them in the same
//    order (their records are the same, record for record);
//  * the counters and peaks (the run adds to them; it reads none but differences).
// Everything else is compared exactly: every record's links, pool, generation, flags and
// categories, the sizes of the visible free blocks and their order in their pool's index,
// the recycled records, the private pools and the next pool id.
//
// The end state onto another start state: records the run did not touch, or touched only in
// their links, are that state's; the others are the run's, each address moved by as much as
// the block of the start state it lies in moved (or, in a segment the run allocated, as much
// as the device's next address moved); free indexes are rebuilt from the run's membership;
// counters add the run's differences and peaks rise by the run's rises.
#ifndef GPUMEM_ALLOC_STATE_DELTA_H_
#define GPUMEM_ALLOC_STATE_DELTA_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "alloc/caching_allocator.h"

namespace gpumem {

class AllocatorStateDelta {
 public:
  using State = CachingAllocator::State;

  // Free blocks of the default pools below these sizes are never candidates (unset: the run
  // made no request of that pool, and every free block of it is invisible).
  struct Visibility {
    std::optional<Bytes> small_from;
    std::optional<Bytes> large_from;
    friend bool operator==(const Visibility&, const Visibility&) = default;
  };

  // `after` is the state the run ended in, with peaks reset when it began (so a peak is the
  // highest value the run reached); `device_next` the device's next address when it began:
  // segments at or above it are the run's. Nullopt when the run touched a record this
  // abstraction hides beyond its links, or made a block outside any block it started with
  // (never, for a run as described above; guarded all the same).
  static std::optional<AllocatorStateDelta> make(const State& before, const State& after,
                                                 std::uint64_t device_next, Visibility visibility);

  // A hash of what the abstraction keeps of `s`: equal for states the run cannot tell apart.
  static std::uint64_t canonical_hash(const State& s, const Visibility& visibility);
  std::uint64_t hash() const { return hash_; }

  // Whether the run cannot tell `now` from the state it began in.
  bool matches(const State& now) const;

  // The state the run ends in from `now`. REQUIRES: matches(now); `device_next` is the
  // device's next address in `now`'s run.
  State apply(const State& now, std::uint64_t device_next) const;

 private:
  // Where a block of the end state lies: in block `base` of the start state (`offset` bytes
  // into it), or, when base is kNew, `offset` bytes above the device's next address.
  struct Relocation {
    std::uint32_t index;
    std::uint32_t base;
    std::uint64_t offset;
  };
  static constexpr std::uint32_t kNew = 0xFFFFFFFFu;

  bool abstracted(const State& s, std::uint32_t i) const;

  State before_;
  State after_;
  Visibility visibility_;
  std::uint64_t hash_ = 0;
  std::vector<Relocation> relocations_;
  // Per record of the end state: 0 the start state's, 1 the start state's with the run's
  // links, 2 the run's, relocated.
  std::vector<std::uint8_t> source_;
};

}  // namespace gpumem

#endif  // GPUMEM_ALLOC_STATE_DELTA_H_
