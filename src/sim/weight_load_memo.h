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
// private pool (its snapshot does not cover them). The memo is an object its owner passes in
// (simulate/simulate.h SimulationCache), shared by every thread of a run; it holds at most
// eight lists.
#ifndef GPUMEM_SIM_WEIGHT_LOAD_MEMO_H_
#define GPUMEM_SIM_WEIGHT_LOAD_MEMO_H_

#include <array>
#include <memory>
#include <mutex>

#include "runtime/weight_loading.h"
#include "sim/sim_device.h"

namespace gpumem {

struct WeightLoad;

// The last load of each of the last few lists. Entries are immutable once stored, so a thread
// restores from one outside the lock.
class WeightLoadMemo {
 public:
  std::shared_ptr<const WeightLoad> find(const WeightList& list);
  // Replaces the entry of the same list, or else the oldest.
  void store(std::shared_ptr<const WeightLoad> load);

 private:
  std::mutex mu_;
  std::array<std::shared_ptr<const WeightLoad>, 8> loads_;
  size_t next_ = 0;
};

class SimWeightLoads final : public WeightLoads {
 public:
  // `device` must be the device under every allocator given to load(), and outlive this;
  // without a `memo` every load is replayed.
  SimWeightLoads(SimDevice& device, WeightLoadMemo* memo) : device_(device), memo_(memo) {}

  Status load(CachingAllocator& allocator, const WeightList& list,
              std::vector<BlockHandle>& released_later) override;

  // How many loads were answered from the memo rather than replayed.
  int restored() const { return restored_; }

 private:
  SimDevice& device_;
  WeightLoadMemo* memo_;
  int restored_ = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_WEIGHT_LOAD_MEMO_H_
