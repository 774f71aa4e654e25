// Runs one start-up program on every simulated rank and collects their ledgers.
//
// Ranks whose inputs are identical (same signature: same GPU, same memory held by others,
// same pipeline stage, same position class in their communicators) are simulated once and
// the result is reported for each of them. Classes run concurrently, one thread each, and
// meet in a Rendezvous for every collective — so a MIN over ranks, or a rank that dies,
// behaves as in the real engine. A single class runs on the caller's thread.
#ifndef GPUMEM_SIM_RUNNER_H_
#define GPUMEM_SIM_RUNNER_H_

#include <string>
#include <vector>

#include "alloc/allocator_config.h"
#include "catalog/gpu_catalog.h"
#include "nccl/nccl_constants.h"
#include "runtime/ledger.h"
#include "runtime/rank_env.h"
#include "sim/capture_memo.h"
#include "sim/device_constants.h"
#include "sim/sim_comm.h"
#include "sim/weight_load_memo.h"

namespace gpumem {

struct SimMachine {
  GpuSpec gpu;
  DeviceConstants device;
  NcclConstants nccl;
  AllocatorConfig allocator;
  SimLinks links;
};

struct SimRank {
  int rank = 0;
  int node = 0;
  int local_rank = 0;  // the GPU's index on its node
  Bytes preoccupied;
  // Ranks with equal signatures must behave identically; the engine model builds it from
  // everything rank-dependent.
  std::string signature;
};

// The memos a run may answer from; null: replay.
struct SimMemos {
  WeightLoadMemo* weight_loads = nullptr;  // sim/weight_load_memo.h
  CaptureMemo* captures = nullptr;         // sim/capture_memo.h
};

// One GpuLedger per rank, in the order of `ranks`. Weight loads already replayed from equal
// states, and memoized bodies already replayed from states they cannot tell apart, are
// restored from `memos` instead.
std::vector<GpuLedger> run_ranks(const SimMachine& machine, const std::vector<SimRank>& ranks,
                                 const RankProgram& program, const SimMemos& memos = {});

}  // namespace gpumem

#endif  // GPUMEM_SIM_RUNNER_H_
