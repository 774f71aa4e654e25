#include "sim/runner.h"

#include <map>
#include <memory>
#include <thread>

#include "sim/capture_memo.h"
#include "sim/ledger_recorder.h"
#include "sim/sim_device.h"
#include "sim/weight_load_memo.h"

namespace gpumem {
namespace {

// Simulates `rank` and writes its ledger to `out`.
void run_one(const SimMachine& machine, const SimRank& rank, int world_size, Rendezvous& rendezvous,
             const RankProgram& program, const SimMemos& memos, GpuLedger& out) {
  SimDevice device(machine.gpu, machine.device, rank.preoccupied);
  AllocatorConfig allocator_config = machine.allocator;
  allocator_config.device_index = rank.local_rank;
  CachingAllocator allocator(device, allocator_config);
  SimComm comm(rank.rank, world_size, device, rendezvous, machine.links, machine.nccl);
  LedgerRecorder recorder(device, allocator, out);
  SimWeightLoads weight_loads(device, memos.weight_loads);
  SimMemoizedRuns memoized(device, allocator, memos.captures, world_size == 1);
  out.rank = rank.rank;
  out.node = rank.node;
  out.gpu = rank.local_rank;
  out.total = device.total();
  out.used_before = rank.preoccupied;
  RankEnv env{rank.rank, world_size, rank.local_rank, rank.node,     device,   comm,
              allocator, recorder,   out.facts,       &weight_loads, &memoized};
  program(env);
  const LedgerStep* failed = out.failed_step();
  if (failed != nullptr && failed->outcome != StepOutcome::kAborted) {
    rendezvous.fail("GPU " + std::to_string(rank.rank) + " (step '" + failed->name + "')");
  } else {
    // A collective another rank still makes would wait for this one forever.
    rendezvous.fail("GPU " + std::to_string(rank.rank) + " (finished its start-up)");
  }
}

}  // namespace

std::vector<GpuLedger> run_ranks(const SimMachine& machine, const std::vector<SimRank>& ranks,
                                 const RankProgram& program, const SimMemos& memos) {
  // One representative per signature, in rank order.
  std::map<std::string, size_t> class_of;
  std::vector<size_t> representatives;
  std::vector<size_t> rank_class(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    auto [it, inserted] = class_of.emplace(ranks[i].signature, representatives.size());
    if (inserted) representatives.push_back(i);
    rank_class[i] = it->second;
  }
  const int world_size = static_cast<int>(ranks.size());
  Rendezvous rendezvous(static_cast<int>(representatives.size()));
  std::vector<GpuLedger> class_ledgers(representatives.size());
  if (representatives.size() == 1) {
    run_one(machine, ranks[representatives[0]], world_size, rendezvous, program, memos,
            class_ledgers[0]);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(representatives.size());
    for (size_t c = 0; c < representatives.size(); ++c) {
      threads.emplace_back([&, c] {
        run_one(machine, ranks[representatives[c]], world_size, rendezvous, program, memos,
                class_ledgers[c]);
      });
    }
    for (std::thread& t : threads) t.join();
  }
  std::vector<GpuLedger> out;
  out.reserve(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    GpuLedger g = class_ledgers[rank_class[i]];
    g.rank = ranks[i].rank;
    g.node = ranks[i].node;
    g.gpu = ranks[i].local_rank;
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace gpumem
