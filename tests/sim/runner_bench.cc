// A synthetic start-up: 8 identical ranks, 100 steps, each allocating and freeing a few
// tensors through the caching allocator, with a communicator and a MIN over ranks.
#include <benchmark/benchmark.h>

#include "sim/runner.h"

namespace gpumem {
namespace {

void BM_Synthetic8Rank100StepStartup(benchmark::State& state) {
  SimMachine m;
  m.gpu.name = "h200-sxm-141gb";
  m.gpu.memory_total = mib(143'771);
  m.gpu.cuda_total = mib(143'156);
  m.gpu.sm_count = 132;
  m.gpu.max_threads_per_sm = 2048;
  m.links.resident_threads = 132 * 2048;
  std::vector<SimRank> ranks;
  for (int r = 0; r < 8; ++r) ranks.push_back({r, 0, r, bytes(0), "same"});
  const RankProgram program = [](RankEnv& env) {
    std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
    Result<CommunicatorId> comm = env.comm.create_communicator(all, NcclSettings{});
    for (int i = 0; i < 100; ++i) {
      Status s = env.step("step", [&]() -> Status {
        Result<BlockHandle> a = env.allocator.allocate(mib(1 + i % 7), Category::kActivations);
        Result<BlockHandle> b = env.allocator.allocate(kib(4 + i), Category::kWeights);
        if (!a.ok() || !b.ok()) return internal_error("allocation failed");
        GPUMEM_RETURN_IF_ERROR(env.allocator.free(*a));
        if (i % 10 == 0) GPUMEM_RETURN_IF_ERROR(env.comm.all_reduce(*comm, DevicePtr{}, bytes(4)));
        return env.comm.min_over_world(env.device.mem_get_info().free, true).status();
      });
      if (!s.ok()) return;
    }
  };
  for (auto _ : state) {
    std::vector<GpuLedger> out = run_ranks(m, ranks, program);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_Synthetic8Rank100StepStartup)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpumem

BENCHMARK_MAIN();
