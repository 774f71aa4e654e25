// Memoised weight loading for the simulator.
//
// A sweep or a fit search simulates one scenario many times with a value changed that no
// step before the KV cache reads, so every run loads the same weight list from the same
// allocator and device state — and replaying a large model's thousands of tensors through
// the allocator model is most of a run. A load is a pure function of the list, the
// allocator's config and state, and the device's constants and state. So the memo keeps,
// for each of the last few lists, the states one load started from and the states it ended
// in; a load of that list from equal states restores the end states instead of replaying.
// The result is the replay's, to the byte: same blocks, addresses, peaks and counters.
//
// Replayed always: a load that fails (out of memory), and a load while the allocator has a
// private pool (its snapshot does not cover them). The memo is shared by every thread and
// holds at most eight lists.
#ifndef GPUMEM_SIM_WEIGHT_LOAD_MEMO_H_
#define GPUMEM_SIM_WEIGHT_LOAD_MEMO_H_

#include "sim/sim_device.h"
#include "sim/weight_loading.h"

namespace gpumem {

class SimWeightLoads final : public WeightLoads {
 public:
  // `device` must be the device under every allocator given to load(), and outlive this.
  explicit SimWeightLoads(SimDevice& device) : device_(device) {}

  Status load(CachingAllocator& allocator, const WeightList& list) override;

  // How many loads were answered from the memo rather than replayed.
  int restored() const { return restored_; }

 private:
  SimDevice& device_;
  int restored_ = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_WEIGHT_LOAD_MEMO_H_
