// Correctness of sweeps: every row equals what `gpumem simulate` gives for that point's
// scenario. Each point's scenario is written here independently, as YAML text (the base
// file with the point's values edited in), parsed and simulated one by one; the sweep
// builds its points in place and runs them on a pool of threads. Fits, the first failure
// (step, GPU, outcome, message), KV tokens, max running requests and minimum headroom must
// agree for every point, and the rows must come in grid order whatever the thread count.
#include "sweep/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "calib/calibration_file.h"
#include "core/atomic_file.h"
#include "support/test_catalogs.h"

namespace gpumem::sweep {
namespace {

// `text` with the value of the line that starts with `prefix` replaced by `value`; when no
// line does, `prefix value` is added after the line `after`.
std::string with_value(std::string text, const std::string& prefix, const std::string& value,
                       const std::string& after = "  args:\n") {
  const size_t at = text.starts_with(prefix) ? 0 : text.find("\n" + prefix);
  if (at == std::string::npos) {
    const size_t anchor = text.find(after);
    EXPECT_NE(anchor, std::string::npos) << after;
    return text.insert(anchor + after.size(), prefix + value + "\n");
  }
  const size_t start = at == 0 ? prefix.size() : at + 1 + prefix.size();
  return text.replace(start, text.find('\n', start) - start, value);
}

// A grid written twice: as --vary arguments, and as the YAML line prefix each key edits.
struct Dimension {
  std::string vary;    // KEY=V1,V2,...
  std::string prefix;  // e.g. "    --tp-size: "
  std::vector<std::string> values;
};

std::string read(const std::string& path) { return *read_file(path, InputKind::kLedger); }

SimulationConstants constants_of(const std::string& gpu) {
  return default_constants(*test_catalogs().gpus.find(gpu));
}

// What `gpumem simulate` reports for `text`, read from the ledger.
PointResult simulate_text(const std::string& text, const std::string& gpu) {
  const TestCatalogs& c = test_catalogs();
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("point.yaml", text, c.gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string() << text;
  std::optional<Ledger> ledger =
      simulate_scenario(*s, SimulationInputs{c.gpus, c.models, constants_of(gpu)}, diags);
  PointResult r;
  if (!ledger || !diags.empty()) {
    r.status = PointStatus::kInvalid;
    for (const Diagnostic& d : diags.errors()) {
      r.reason += (r.reason.empty() ? "" : "; ") + d.message;
    }
    return r;
  }
  r.status = ledger->fits() ? PointStatus::kFits : PointStatus::kFails;
  if (const GpuLedger* g = ledger->first_failure()) {
    r.failed_step = g->failed_step()->name;
    r.failed_gpu = g->rank;
    r.failed_outcome = g->failed_step()->outcome;
    r.reason = g->failed_step()->message;
  }
  for (const GpuLedger& g : ledger->gpus) {
    if (const Fact* f = g.fact("kv_tokens")) {
      const std::int64_t v = std::get<std::int64_t>(f->value);
      r.kv_tokens = r.kv_tokens ? std::min(*r.kv_tokens, v) : v;
    }
    if (const Fact* f = g.fact("max_running_requests")) {
      const std::int64_t v = std::get<std::int64_t>(f->value);
      r.max_running_requests = r.max_running_requests ? std::min(*r.max_running_requests, v) : v;
    }
    for (const LedgerStep& step : g.steps) {
      const Bytes free = g.total - step.peak_used;
      r.min_headroom = r.min_headroom ? std::min(*r.min_headroom, free) : free;
    }
  }
  if (const Fact* f = ledger->fact("data_parallel_replicas")) {
    r.replicas = static_cast<int>(std::get<std::int64_t>(f->value));
  }
  if (r.kv_tokens) r.kv_tokens_total = *r.kv_tokens * r.replicas;
  if (ledger->calibrated) r.calibration = ledger->calibration;
  return r;
}

struct Outcome {
  std::vector<PointResult> sweep;
  std::vector<PointResult> expected;
};

Outcome run(const std::string& path, const std::vector<Dimension>& dims,
            const std::string& gpu_prefix, int threads) {
  const TestCatalogs& c = test_catalogs();
  const std::string text = read(path);
  Diagnostics diags;
  const Scenario base = *parse_scenario(path, text, c.gpus, diags);
  std::vector<Axis> axes;
  for (size_t i = 0; i < dims.size(); ++i) {
    std::optional<Axis> a = parse_axis(dims[i].vary, static_cast<int>(i) + 1, diags);
    EXPECT_TRUE(a && check_axis(*a, base, c.gpus, diags)) << diags.to_string();
    axes.push_back(*a);
  }
  SweepInputs inputs{c.gpus, c.models, {}};
  for (const char* g : {"h200", "h100-sxm-80gb", "rtx-pro-6000-blackwell"}) {
    inputs.constants.emplace_back(c.gpus.find(g)->name, constants_of(g));
  }
  const Grid grid(axes);
  Outcome out;
  run_sweep(base, grid, inputs, SweepOptions{threads, {}}, [&](size_t p, const PointResult& r) {
    EXPECT_EQ(p, out.sweep.size()) << "results arrive in grid order";
    out.sweep.push_back(r);
  });
  // The same points as nested loops, first dimension outermost.
  std::vector<size_t> index(dims.size(), 0);
  for (size_t p = 0; p < grid.size(); ++p) {
    std::string point = text;
    std::string gpu = base.hardware.gpu;
    for (size_t d = 0; d < dims.size(); ++d) {
      const std::string& v = dims[d].values[index[d]];
      point = with_value(point, dims[d].prefix, v);
      if (dims[d].prefix == gpu_prefix) gpu = v;
    }
    out.expected.push_back(simulate_text(point, gpu));
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d].values.size()) break;
      index[d] = 0;
    }
  }
  return out;
}

void expect_rows_equal(const Outcome& o) {
  ASSERT_EQ(o.sweep.size(), o.expected.size());
  std::map<PointStatus, int> statuses;
  for (size_t p = 0; p < o.sweep.size(); ++p) {
    const PointResult& s = o.sweep[p];
    const PointResult& e = o.expected[p];
    ++statuses[e.status];
    EXPECT_EQ(s.status, e.status) << "point " << p;
    EXPECT_EQ(s.failed_step, e.failed_step) << "point " << p;
    EXPECT_EQ(s.failed_gpu, e.failed_gpu) << "point " << p;
    EXPECT_EQ(s.failed_outcome, e.failed_outcome) << "point " << p;
    EXPECT_EQ(s.reason, e.reason) << "point " << p;
    EXPECT_EQ(s.kv_tokens, e.kv_tokens) << "point " << p;
    EXPECT_EQ(s.max_running_requests, e.max_running_requests) << "point " << p;
    EXPECT_EQ(s.min_headroom, e.min_headroom) << "point " << p;
  }
  // The grids are chosen to reach every kind of row.
  EXPECT_GT(statuses[PointStatus::kFits], 0);
  EXPECT_GT(statuses[PointStatus::kFails], 0);
  EXPECT_GT(statuses[PointStatus::kInvalid], 0);
}

const std::vector<Dimension> kSeedGrid = {
    {"--mem-fraction-static=0.55..0.95:0.10",
     "    --mem-fraction-static: ",
     {"0.55", "0.65", "0.75", "0.85", "0.95"}},
    {"--cuda-graph-max-bs=64,160", "    --cuda-graph-max-bs: ", {"64", "160"}},
    {"--tp-size=8,3", "    --tp-size: ", {"8", "3"}},
    {"hardware.gpu=rtx-pro-6000-blackwell,h200", "  gpu: ", {"rtx-pro-6000-blackwell", "h200"}},
    {"SGLANG_CUSTOM_ALLREDUCE_ALGO=1stage,2stage",
     "    SGLANG_CUSTOM_ALLREDUCE_ALGO: ",
     {"1stage", "2stage"}},
};

TEST(Sweep, SeedGridRowsEqualSimulate) {
  const Outcome o =
      run(GPUMEM_SOURCE_DIR "/scenarios/seed-kimi-k2-pcie8-mfs055.yaml", kSeedGrid, "  gpu: ", 2);
  ASSERT_EQ(o.sweep.size(), 80u);
  expect_rows_equal(o);
}

TEST(Sweep, VllmGridRowsEqualSimulate) {
  const std::vector<Dimension> grid = {
      {"--gpu-memory-utilization=0.50..0.95:0.15",
       "    --gpu-memory-utilization: ",
       {"0.50", "0.65", "0.80", "0.95"}},
      {"--max_model_len=8192,131072", "    --max-model-len: ", {"8192", "131072"}},
      {"hardware.count=4,3", "  count: ", {"4", "3"}},
      {"--kv-cache-dtype=auto,fp8", "    --kv-cache-dtype: ", {"auto", "fp8"}},
  };
  const Outcome o =
      run(GPUMEM_SOURCE_DIR "/scenarios/h100x4-llama-3.1-70b-vllm-tp4.yaml", grid, "  gpu: ", 2);
  ASSERT_EQ(o.sweep.size(), 32u);
  expect_rows_equal(o);
}

TEST(Sweep, ResultsDoNotDependOnTheThreadCount) {
  const std::string seed = GPUMEM_SOURCE_DIR "/scenarios/seed-kimi-k2-pcie8-mfs055.yaml";
  const Outcome one = run(seed, kSeedGrid, "  gpu: ", 1);
  const Outcome three = run(seed, kSeedGrid, "  gpu: ", 3);
  EXPECT_EQ(one.sweep, three.sweep);
}

TEST(Sweep, ProgressIsReportedToTheEnd) {
  const TestCatalogs& c = test_catalogs();
  Diagnostics diags;
  const Scenario base =
      *load_scenario(GPUMEM_SOURCE_DIR "/scenarios/seed-kimi-k2-pcie8-mfs055.yaml", c.gpus, diags);
  std::optional<Axis> a = parse_axis("--cuda-graph-max-bs=8..64:8", 1, diags);
  ASSERT_TRUE(a && check_axis(*a, base, c.gpus, diags));
  SweepInputs inputs{c.gpus, c.models, {}};
  inputs.constants.emplace_back(base.hardware.gpu, constants_of(base.hardware.gpu));
  size_t last_done = 0;
  size_t calls = 0;
  const Grid grid({*a});
  run_sweep(base, grid, inputs,
            SweepOptions{2,
                         [&](size_t done, size_t total) {
                           EXPECT_EQ(total, 8u);
                           EXPECT_GE(done, last_done);
                           last_done = done;
                           ++calls;
                         }},
            [](size_t, const PointResult&) {});
  EXPECT_GE(calls, 1u);
  EXPECT_EQ(last_done, 8u);
}

TEST(Sweep, WorkersAreCappedByThePointsOfTheGrid) {
  const TestCatalogs& c = test_catalogs();
  Diagnostics diags;
  const Scenario base =
      *load_scenario(GPUMEM_SOURCE_DIR "/scenarios/seed-kimi-k2-pcie8-mfs055.yaml", c.gpus, diags);
  std::optional<Axis> a = parse_axis("--cuda-graph-max-bs=8,16", 1, diags);
  ASSERT_TRUE(a && check_axis(*a, base, c.gpus, diags));
  SweepInputs inputs{c.gpus, c.models, {}};
  inputs.constants.emplace_back(base.hardware.gpu, constants_of(base.hardware.gpu));
  const Grid grid({*a});
  // `-j 100000` for two points used to start 100,000 threads.
  size_t results = 0;
  const SweepRun out = run_sweep(base, grid, inputs, SweepOptions{100000, {}},
                                 [&](size_t, const PointResult&) { ++results; });
  EXPECT_EQ(out.threads, 2);
  EXPECT_EQ(out.thread_failure, "");
  EXPECT_EQ(results, 2u);
}

// Results stream: with the first chunk slow, the other workers run at most their window
// ahead of it instead of through the whole grid, so a sweep holds a bounded number of
// results. 10,000 points on 4 threads: chunks of 64, a window of 64 x 4 x 4 = 1,024 points
// past the first undelivered one, plus the 4 chunks in flight.
TEST(Sweep, ResultsStreamInOrderWithABoundedBacklog) {
  constexpr size_t kPoints = 10'000;
  constexpr size_t kBound = 1'024 + 4 * 64;
  std::atomic<size_t> started{0};
  std::atomic<size_t> delivered{0};
  std::atomic<size_t> widest{0};
  const SweepRun run = run_points(
      kPoints, SweepOptions{4, {}},
      [&]() -> PointFunction {
        return [&](size_t p) {
          // Points delivered since this one started may outnumber those started before it:
          // the gap is then none, not an unsigned wrap-around.
          const size_t begun = started.fetch_add(1) + 1;
          const size_t done = delivered.load();
          const size_t gap = begun > done ? begun - done : 0;
          for (size_t w = widest.load(); gap > w && !widest.compare_exchange_weak(w, gap);) {
          }
          if (p < 64) std::this_thread::sleep_for(std::chrono::milliseconds(2));
          PointResult r = invalid_point("point " + std::to_string(p));
          return r;
        };
      },
      [&](size_t p, const PointResult& r) {
        EXPECT_EQ(p, delivered.load());
        EXPECT_EQ(r.reason, "point " + std::to_string(p));
        delivered.fetch_add(1);
      });
  EXPECT_EQ(run.threads, 4);
  EXPECT_EQ(delivered.load(), kPoints);
  EXPECT_LE(widest.load(), kBound);
  EXPECT_GT(widest.load(), 64u);  // the other workers did run ahead of the slow chunk
}

}  // namespace
}  // namespace gpumem::sweep
