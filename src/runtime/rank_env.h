// Everything one rank's start-up program works with: its device, its link to the other
// ranks, its PyTorch allocator, the observer that records its steps, and where it puts the
// numbers it computed. The simulator builds it over simulated implementations, the probe
// over real ones; an engine model's program sees no difference.
#ifndef GPUMEM_RUNTIME_RANK_ENV_H_
#define GPUMEM_RUNTIME_RANK_ENV_H_

#include <functional>
#include <string_view>
#include <vector>

#include "alloc/caching_allocator.h"
#include "device/comm.h"
#include "device/device.h"
#include "device/step_observer.h"
#include "runtime/ledger.h"
#include "runtime/memoized_run.h"
#include "runtime/weight_loading.h"

namespace gpumem {

struct RankEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int node = 0;
  Device& device;
  Comm& comm;
  CachingAllocator& allocator;
  StepObserver& observer;
  std::vector<Fact>& facts;
  // Null: every weight list is replayed through the allocator (the probe).
  WeightLoads* weight_loads = nullptr;
  // Null: every memoizable body runs (the probe, a simulation without a cache).
  MemoizedRuns* memoized = nullptr;

  // Runs `body` as the step `name`: announces it, runs it, records how it ended, and
  // returns that status, so a program stops at its first failed step with
  // GPUMEM_RETURN_IF_ERROR(env.step(...)).
  Status step(std::string_view name, const std::function<Status()>& body) {
    observer.begin_step(name);
    Status s = body();
    observer.end_step(s);
    return s;
  }
  void fact(Fact f) { facts.push_back(std::move(f)); }
  // Allocates `list`'s tensors through the rank's allocator, in order (weight_loading.h);
  // the blocks a later step frees are appended to `released_later`.
  Status load_weights(const WeightList& list, std::vector<BlockHandle>& released_later) {
    return weight_loads != nullptr
               ? weight_loads->load(allocator, list, released_later)
               : load_weight_tensors(allocator, tensors_of(list), released_later);
  }
  Status load_weights(const WeightList& list) {
    std::vector<BlockHandle> none;
    GPUMEM_RETURN_IF_ERROR(load_weights(list, none));
    if (!none.empty()) return internal_error("a weight list left blocks for a later step");
    return {};
  }
  // Runs `body` (runtime/memoized_run.h), or lets the simulator restore its outcome.
  Status run_memoized(const RunKey& key, const MemoizedBody& body, FreeReadings& readings) {
    return memoized != nullptr ? memoized->run(key, body, readings) : body(readings);
  }
  void log(std::string_view line) { observer.log_line(line); }
};

// A start-up program: what one rank of an engine does, step by step.
using RankProgram = std::function<void(RankEnv&)>;

}  // namespace gpumem

#endif  // GPUMEM_RUNTIME_RANK_ENV_H_
