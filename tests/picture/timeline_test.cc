// Chrome-trace timelines: the file parses back, every event has the fields its phase needs,
// each process's timestamps never go back, and the counters hold the ledger's numbers; next
// to a committed probe run, predicted slices sit on the measured clock.
#include "picture/timeline.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "catalog/scenario.h"
#include "picture/two_gpu_ledger.h"
#include "simulate/simulate.h"
#include "support/bundled_scenario.h"

namespace gpumem {
namespace {

using Json = nlohmann::json;

// Checks the Trace Event format's required fields and per-process monotonic time.
void expect_valid_trace(const Json& doc) {
  ASSERT_TRUE(doc.contains("traceEvents"));
  EXPECT_EQ(doc.at("displayTimeUnit"), "ms");
  std::map<int, std::int64_t> last_ts;
  for (const Json& e : doc.at("traceEvents")) {
    for (const char* key : {"name", "ph", "pid", "tid", "ts"}) {
      ASSERT_TRUE(e.contains(key)) << key << " missing in " << e.dump();
    }
    const std::string ph = e.at("ph");
    ASSERT_TRUE(ph == "M" || ph == "X" || ph == "C" || ph == "i") << ph;
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur"));
      EXPECT_GT(e.at("dur").get<std::int64_t>(), 0);
    }
    if (ph == "C") {
      ASSERT_TRUE(e.at("args").at("MiB").is_number()) << e.dump();
    }
    const int pid = e.at("pid");
    const std::int64_t ts = e.at("ts");
    EXPECT_GE(ts, last_ts[pid]) << "time goes back in process " << pid << ": " << e.dump();
    last_ts[pid] = ts;
  }
}

std::vector<Json> events(const Json& doc, int pid, const std::string& ph, const std::string& name) {
  std::vector<Json> out;
  for (const Json& e : doc.at("traceEvents")) {
    if (e.at("pid") == pid && e.at("ph") == ph && e.at("name") == name) out.push_back(e);
  }
  return out;
}

// The counter's samples as (ts, MiB) pairs.
std::vector<std::pair<std::int64_t, double>> samples(const Json& doc, int pid,
                                                     const std::string& counter) {
  std::vector<std::pair<std::int64_t, double>> out;
  for (const Json& e : events(doc, pid, "C", counter)) {
    out.emplace_back(e.at("ts").get<std::int64_t>(), e.at("args").at("MiB").get<double>());
  }
  return out;
}

using Samples = std::vector<std::pair<std::int64_t, double>>;

TEST(Timeline, PredictedStepsAreSlicesOneMillisecondApartWithCountersPerCategory) {
  const Json doc = Json::parse(predicted_timeline(two_gpu_ledger()));
  expect_valid_trace(doc);
  EXPECT_EQ(events(doc, 1, "M", "process_name").at(0).at("args").at("name"), "GPU 0 predicted");
  EXPECT_EQ(events(doc, 3, "M", "process_name").at(0).at("args").at("name"), "GPU 1 predicted");
  EXPECT_EQ(events(doc, 1, "M", "thread_name").at(0).at("args").at("name"), "start-up steps");
  const std::vector<Json> weights = events(doc, 1, "X", "weights");
  ASSERT_EQ(weights.size(), 1u);
  EXPECT_EQ(weights[0].at("ts"), 1000);
  EXPECT_EQ(weights[0].at("dur"), 1000);
  EXPECT_EQ(weights[0].at("args").at("change by category (MiB)"), Json({{"weights", 1024.0}}));
  EXPECT_EQ(weights[0].at("args").at("log"), Json({"Load weight end."}));
  EXPECT_EQ(samples(doc, 1, "weights"), (Samples{{0, 0}, {1000, 0}, {2000, 1024}, {3000, 1024}}));
  EXPECT_EQ(samples(doc, 1, "kv"), (Samples{{0, 0}, {1000, 0}, {2000, 0}, {3000, 4096}}));
  // 256 MiB of other processes, then the context, the weights' 2304 MiB peak mid-step, ...
  EXPECT_EQ(samples(doc, 1, "used"),
            (Samples{{0, 256}, {1000, 768}, {1500, 2304}, {2000, 1792}, {3000, 5888}}));
  EXPECT_EQ(samples(doc, 1, "free"),
            (Samples{{0, 7936}, {1000, 7424}, {2000, 6400}, {3000, 2304}}));
  EXPECT_TRUE(events(doc, 1, "i", "out of memory").empty());
}

TEST(Timeline, AnOutOfMemoryStepIsMarkedWithItsRequest) {
  const Json doc = Json::parse(predicted_timeline(two_gpu_ledger()));
  const std::vector<Json> oom = events(doc, 3, "i", "out of memory");
  ASSERT_EQ(oom.size(), 1u);
  EXPECT_EQ(oom[0].at("ts"), 3000);
  EXPECT_EQ(oom[0].at("args"),
            Json({{"step", "kv"}, {"requested (MiB)", 7000.0}, {"free at failure (MiB)", 6400.0}}));
  EXPECT_EQ(events(doc, 3, "X", "kv").at(0).at("args").at("outcome"), "out_of_memory");
}

TEST(Timeline, ABundledScenarioGivesAValidTraceWithAProcessPerGpu) {
  const Ledger ledger = simulate_bundled("seed-kimi-k2-pcie8-mfs055");
  const Json doc = Json::parse(predicted_timeline(ledger));
  expect_valid_trace(doc);
  int processes = 0;
  for (const Json& e : doc.at("traceEvents")) processes += e.at("name") == "process_name";
  EXPECT_EQ(processes, 8);
  EXPECT_EQ(doc.at("metadata").at("scenario"), "seed-kimi-k2-pcie8-mfs055");
}

TEST(Timeline, NextToAProbeRunPredictedStepsTakeTheMeasuredClock) {
  const std::string dir = GPUMEM_SOURCE_DIR "/reports/probe/h200x2/h200x2-llama8b-tp2/run1";
  Result<std::vector<Trace>> traces = read_trace_dir(dir);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  Diagnostics diags;
  std::optional<Scenario> s = load_scenario(dir + "/scenario.yaml", test_catalogs().gpus, diags);
  ASSERT_TRUE(s) << diags.to_string();
  const std::optional<Ledger> ledger =
      simulate_scenario(*s, {test_catalogs().gpus, test_catalogs().models, {}}, diags);
  ASSERT_TRUE(ledger) << diags.to_string();
  const Json doc = Json::parse(compared_timeline(*ledger, *traces));
  expect_valid_trace(doc);
  for (const Trace& t : *traces) {
    const int predicted = 2 * t.rank + 1;
    const int measured = 2 * t.rank + 2;
    EXPECT_EQ(events(doc, measured, "M", "process_name").at(0).at("args").at("name"),
              "GPU " + std::to_string(t.rank) + " measured (" + t.gpu_name + ")");
    const TraceStep* w = t.step("weights");
    ASSERT_NE(w, nullptr);
    const std::int64_t start = std::llround((w->start_s - t.steps.front().start_s) * 1e6);
    const std::int64_t dur = std::llround(w->wall_s * 1e6);
    for (int pid : {predicted, measured}) {
      const Json slice = events(doc, pid, "X", "weights").at(0);
      EXPECT_EQ(slice.at("ts"), start) << pid;
      EXPECT_EQ(slice.at("dur"), dur) << pid;
    }
    // The measured "used" after the weights is CUDA's total less the free memory read then.
    const double used_mib =
        static_cast<double>((*t.cuda_total - *w->free_after).value()) / (1 << 20);
    bool found = false;
    for (const auto& [ts, mib] : samples(doc, measured, "used")) {
      if (ts == start + dur) {
        EXPECT_EQ(mib, used_mib);
        found = true;
      }
    }
    EXPECT_TRUE(found);
    EXPECT_FALSE(samples(doc, measured, "own weights").empty());
  }
}

}  // namespace
}  // namespace gpumem
