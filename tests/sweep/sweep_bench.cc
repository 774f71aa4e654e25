// Speed of what-if evaluation, on the seed scenario (8 x RTX PRO 6000, Kimi-K2 TP 8 with an
// EAGLE-3 draft): its catalogs and scenario are read once, then
//  * BM_SimulateSeed: one simulate_scenario of the parsed scenario, on one core;
//  * BM_EvaluateSeedPoint: one sweep point (scenario written in place, simulated and
//    summarised) on one core, cycling over a 40-point grid;
//  * BM_SimulatePipelined16: a 16-GPU pipeline-parallel scenario whose rank classes meet on
//    threads;
//  * BM_SweepSeed: a whole sweep of that grid on every core; items/s is evaluations/s;
//  * BM_SweepFractionH200 and BM_SweepMixedDeepSeekV3: issue 24's two target workloads,
//    a 65,001-point --mem-fraction-static sweep of one H200 (Llama 3.1 8B) and a 10,000-point
//    grid (fraction x graph max batch x context length x KV dtype) of 8 H200s serving
//    DeepSeek-V3 TP 8, each a whole sweep on every core, results streamed and dropped (the
//    fraction sweep also with the capture memo off: BM_SweepFractionH200NoCaptureMemo);
//  * BM_LoadGpuCatalog: reading model/gpu, part of every `gpumem simulate`;
//  * BM_GpumemSimulate: `gpumem simulate` end to end, as a process (wall time), of the seed,
//    of one H200 with Llama 3.1 8B, and of the 16-GPU pipeline.
// The single-core benchmarks also report heap_allocs: operator new calls per iteration,
// counted by this program's own global operator new.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <optional>
#include <thread>
#include <vector>

#include "calib/calibration_file.h"
#include "catalog/scenario.h"
#include "simulate/simulate.h"
#include "sweep/evaluator.h"
#include "sweep/sweep.h"

namespace {
// Per thread: one counter shared by the sweep's workers made every operator new a contended
// atomic (30 % of a fraction sweep's samples in perf), slowing what it measured. The
// single-core benchmarks read their own thread's count.
thread_local std::int64_t heap_allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  ++heap_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC 12 takes the free() of a replaced operator delete for a mismatched pair.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace gpumem {
namespace {

// Heap allocations per iteration of the loop that ran since `start`.
void report_heap_allocations(benchmark::State& state, std::int64_t start) {
  state.counters["heap_allocs"] = benchmark::Counter(static_cast<double>(heap_allocations - start),
                                                     benchmark::Counter::kAvgIterations);
}

#define GPUMEM_SEED_SCENARIO GPUMEM_SOURCE_DIR "/scenarios/seed-kimi-k2-pcie8-mfs055.yaml"

struct Seed {
  GpuCatalog gpus;
  ModelCatalog models;
  Scenario scenario;
  SimulationConstants constants;
};

Seed load_bundled(const char* scenario) {
  Diagnostics diags;
  Seed out{*GpuCatalog::load(GPUMEM_SOURCE_DIR "/model/gpu", diags),
           *ModelCatalog::open(GPUMEM_SOURCE_DIR "/model/llm"),
           {},
           {}};
  out.scenario = *load_scenario(scenario, out.gpus, diags);
  out.constants = default_constants(*out.gpus.find(out.scenario.hardware.gpu));
  return out;
}

const Seed& seed() {
  static const Seed s = load_bundled(GPUMEM_SEED_SCENARIO);
  return s;
}

// 5 memory fractions x 4 CUDA-graph sizes x 2 custom all-reduce algorithms.
sweep::Grid seed_grid() {
  const Seed& s = seed();
  Diagnostics diags;
  std::vector<sweep::Axis> axes;
  int ordinal = 0;
  for (const char* arg : {"--mem-fraction-static=0.55..0.95:0.10", "--cuda-graph-max-bs=32..128:32",
                          "SGLANG_CUSTOM_ALLREDUCE_ALGO=1stage,2stage"}) {
    std::optional<sweep::Axis> a = sweep::parse_axis(arg, ++ordinal, diags);
    sweep::check_axis(*a, s.scenario, s.gpus, diags);
    axes.push_back(std::move(*a));
  }
  return sweep::Grid(std::move(axes));
}

// The cache a run shares, as `gpumem sweep` and the fit advice share theirs.
SimulationCache& bench_cache() {
  static SimulationCache cache;
  return cache;
}

sweep::SweepInputs seed_inputs() {
  const Seed& s = seed();
  sweep::SweepInputs inputs{s.gpus, s.models, {}, &bench_cache()};
  inputs.constants.emplace_back(s.scenario.hardware.gpu, s.constants);
  return inputs;
}

void BM_SimulateSeed(benchmark::State& state) {
  const Seed& s = seed();
  const SimulationInputs inputs{s.gpus, s.models, s.constants, &bench_cache()};
  const std::int64_t start = heap_allocations;
  for (auto _ : state) {
    Diagnostics diags;
    std::optional<Ledger> ledger = simulate_scenario(s.scenario, inputs, diags);
    benchmark::DoNotOptimize(ledger);
  }
  report_heap_allocations(state, start);
}
BENCHMARK(BM_SimulateSeed)->Unit(benchmark::kMicrosecond);

// 16 H100s, Llama 3.1 405B at TP8 x PP2 over two nodes: two classes of ranks (one per
// pipeline stage) on their own threads, meeting for every collective (wall time: the threads share
// the cores).
void BM_SimulatePipelined16(benchmark::State& state) {
  static const Seed s =
      load_bundled(GPUMEM_SOURCE_DIR "/scenarios/h100x16-llama-3.1-405b-tp8-pp2.yaml");
  const SimulationInputs inputs{s.gpus, s.models, s.constants, &bench_cache()};
  for (auto _ : state) {
    Diagnostics diags;
    std::optional<Ledger> ledger = simulate_scenario(s.scenario, inputs, diags);
    benchmark::DoNotOptimize(ledger);
  }
}
BENCHMARK(BM_SimulatePipelined16)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_EvaluateSeedPoint(benchmark::State& state) {
  const sweep::Grid grid = seed_grid();
  const sweep::SweepInputs inputs = seed_inputs();
  sweep::PointEvaluator evaluator(seed().scenario, grid, inputs);
  size_t point = 0;
  const std::int64_t start = heap_allocations;
  for (auto _ : state) {
    sweep::PointResult r = evaluator.evaluate(point);
    benchmark::DoNotOptimize(r);
    point = (point + 1) % grid.size();
  }
  report_heap_allocations(state, start);
}
BENCHMARK(BM_EvaluateSeedPoint)->Unit(benchmark::kMicrosecond);

void BM_SweepSeed(benchmark::State& state) {
  const sweep::Grid grid = seed_grid();
  const sweep::SweepInputs inputs = seed_inputs();
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (auto _ : state) {
    size_t fitting = 0;
    sweep::run_sweep(seed().scenario, grid, inputs, {threads, {}},
                     [&](size_t, const sweep::PointResult& r) {
                       fitting += r.status == sweep::PointStatus::kFits ? 1 : 0;
                     });
    benchmark::DoNotOptimize(fitting);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(grid.size()));
}
BENCHMARK(BM_SweepSeed)->Unit(benchmark::kMillisecond)->UseRealTime();

// A whole sweep of `scenario` over `axes` on every core; items/s is points per second, and
// the counters say how many CUDA-graph captures the capture memo answered and replayed.
void sweep_bundled(benchmark::State& state, const char* scenario,
                   const std::vector<const char*>& arguments, bool memoize_captures = true) {
  const Seed s = load_bundled(scenario);
  Diagnostics diags;
  std::vector<sweep::Axis> axes;
  int ordinal = 0;
  for (const char* arg : arguments) {
    std::optional<sweep::Axis> a = sweep::parse_axis(arg, ++ordinal, diags);
    if (!a || !sweep::check_axis(*a, s.scenario, s.gpus, diags)) {
      state.SkipWithError(diags.to_string().c_str());
      return;
    }
    axes.push_back(std::move(*a));
  }
  const sweep::Grid grid(std::move(axes));
  SimulationCache cache;
  cache.memoize_captures = memoize_captures;
  sweep::SweepInputs inputs{s.gpus, s.models, {}, &cache};
  inputs.constants.emplace_back(s.scenario.hardware.gpu, s.constants);
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (auto _ : state) {
    size_t fitting = 0;
    sweep::run_sweep(s.scenario, grid, inputs, {threads, {}},
                     [&](size_t, const sweep::PointResult& r) {
                       fitting += r.status == sweep::PointStatus::kFits ? 1 : 0;
                     });
    benchmark::DoNotOptimize(fitting);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(grid.size()));
  state.counters["capture_hits"] = cache.captures.hits();
  state.counters["capture_misses"] = cache.captures.misses();
}

void BM_SweepFractionH200(benchmark::State& state) {
  sweep_bundled(state, GPUMEM_SOURCE_DIR "/scenarios/h200x1-llama-3.1-8b.yaml",
                {"--mem-fraction-static=0.25..0.90:0.00001"});
}
BENCHMARK(BM_SweepFractionH200)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// The same sweep with every capture replayed: what the capture memo saves.
void BM_SweepFractionH200NoCaptureMemo(benchmark::State& state) {
  sweep_bundled(state, GPUMEM_SOURCE_DIR "/scenarios/h200x1-llama-3.1-8b.yaml",
                {"--mem-fraction-static=0.25..0.90:0.00001"}, /*memoize_captures=*/false);
}
BENCHMARK(BM_SweepFractionH200NoCaptureMemo)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_SweepMixedDeepSeekV3(benchmark::State& state) {
  sweep_bundled(state, GPUMEM_SOURCE_DIR "/scenarios/h200x8-deepseek-v3-tp8.yaml",
                {"--mem-fraction-static=0.70..0.94:0.01", "--cuda-graph-max-bs=16..160:16",
                 "--context-length=4096..81920:4096", "--kv-cache-dtype=auto,fp8_e4m3"});
}
BENCHMARK(BM_SweepMixedDeepSeekV3)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// `gpumem simulate` of a bundled scenario, as a process: start-up, catalogs, simulation, and
// for a scenario that does not start (the seed), the fit advice's searches.
// What every `gpumem simulate` pays before simulating: yaml-cpp reading the GPU files of
// model/gpu (64 files of about 1 KB) into the GPU catalog.
void BM_LoadGpuCatalog(benchmark::State& state) {
  for (auto _ : state) {
    Diagnostics diags;
    Result<GpuCatalog> gpus = GpuCatalog::load(GPUMEM_SOURCE_DIR "/model/gpu", diags);
    if (!gpus.ok() || !diags.empty()) state.SkipWithError("cannot load model/gpu");
    benchmark::DoNotOptimize(gpus);
  }
}
BENCHMARK(BM_LoadGpuCatalog)->Unit(benchmark::kMillisecond);

// Spawned directly, not through a shell (std::system's /bin/sh would add a millisecond).
void BM_GpumemSimulate(benchmark::State& state, const char* scenario) {
  const std::string binary = GPUMEM_BINARY;
  const std::string path = std::string(GPUMEM_SOURCE_DIR "/scenarios/") + scenario;
  std::string simulate = "simulate";
  char* argv[] = {const_cast<char*>(binary.c_str()), simulate.data(),
                  const_cast<char*>(path.c_str()), nullptr};
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  for (auto _ : state) {
    pid_t pid = 0;
    int status = 0;
    if (posix_spawn(&pid, binary.c_str(), &quiet, nullptr, argv, environ) != 0 ||
        waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
      state.SkipWithError("gpumem simulate did not run to an answer");
      break;
    }
  }
  posix_spawn_file_actions_destroy(&quiet);
}
BENCHMARK_CAPTURE(BM_GpumemSimulate, seed, "seed-kimi-k2-pcie8-mfs055.yaml")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_GpumemSimulate, h200x1_llama8b, "h200x1-llama-3.1-8b.yaml")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_GpumemSimulate, h100x16_pp2, "h100x16-llama-3.1-405b-tp8-pp2.yaml")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace gpumem

BENCHMARK_MAIN();
