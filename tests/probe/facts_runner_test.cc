#include "probe/facts_runner.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "probe/atomic_file.h"

namespace gpumem::probe {
namespace {

using nlohmann::json;

// Runs the facts runner against fake_facts_worker.sh with the given fake environment.
class FactsRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = std::filesystem::temp_directory_path() / ("gpumem-facts-" + std::to_string(::getpid()));
    std::filesystem::remove_all(out_);
  }
  void TearDown() override {
    ::unsetenv("FAKE_GPUS");
    ::unsetenv("FAKE_FAIL_KIND");
    std::filesystem::remove_all(out_);
  }
  int run(std::chrono::seconds budget = std::chrono::seconds(120)) {
    FactsOptions o;
    o.out_dir = out_;
    o.self_exe = std::string(GPUMEM_SOURCE_DIR) + "/tests/probe/fake_facts_worker.sh";
    o.job_timeout = std::chrono::seconds(20);
    o.budget = budget;
    return run_facts(o);
  }
  json file(const std::string& name) {
    auto text = read_file(out_ / name, InputKind::kTrace);
    EXPECT_TRUE(text.ok()) << name;
    return text.ok() ? json::parse(*text) : json();
  }
  const json* run_named(const json& group, const std::string& job) {
    for (const json& r : group["runs"]) {
      if (r["job"] == job) return &r;
    }
    ADD_FAILURE() << "no run " << job;
    return nullptr;
  }
  std::filesystem::path out_;
};

TEST_F(FactsRunnerTest, TwoGpusRunEverythingAndMergeByGroup) {
  ::setenv("FAKE_GPUS", "2", 1);
  EXPECT_EQ(run(), 0);
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(out_)) ++files;
  EXPECT_EQ(files, 8);  // run.json and one file per group

  const json summary = file("run.json");
  EXPECT_EQ(summary["gpu_count"], 2);
  EXPECT_EQ(summary["nccl_ranks"], 2);
  ASSERT_EQ(summary["jobs"].size(), 51u);  // 50 plan jobs, provenance once per GPU
  for (const json& j : summary["jobs"]) EXPECT_EQ(j["status"], "ok") << j["job"];

  const json provenance = file("provenance.json");
  ASSERT_EQ(provenance["runs"].size(), 2u);
  EXPECT_EQ(provenance["runs"][1]["job"], "provenance GPU 1");
  EXPECT_EQ(provenance["runs"][1]["gpus"], json::array({1}));

  // Single-GPU measurements are spread over both GPUs.
  const json malloc_group = file("malloc.json");
  ASSERT_EQ(malloc_group["runs"].size(), 14u);  // cuMem granularity and 13 sweep points
  const bool used_gpu1 = std::any_of(malloc_group["runs"].begin(), malloc_group["runs"].end(),
                                     [](const json& r) { return r["gpus"] == json::array({1}); });
  EXPECT_TRUE(used_gpu1);

  const json context = file("context.json");
  const json* eager = run_named(context, "context CUDA_MODULE_LOADING=EAGER");
  ASSERT_NE(eager, nullptr);
  EXPECT_EQ((*eager)["ranks"][0]["data"]["loading"], "EAGER");

  const json nccl = file("nccl.json");
  ASSERT_EQ(nccl["runs"].size(), 27u);
  const json* first =
      run_named(nccl, "nccl cumem=0 runtime_connect=0 buffsize=default channels=default");
  ASSERT_NE(first, nullptr);
  ASSERT_EQ((*first)["ranks"].size(), 2u);
  EXPECT_EQ((*first)["ranks"][0]["data"]["cumem"], "0");
  EXPECT_EQ((*first)["ranks"][1]["gpu"], 1);
  EXPECT_EQ((*first)["ranks"][1]["nccl_log"]["channels"][0]["coll"], 2);
  EXPECT_EQ((*first)["env_set"]["NCCL_NVLS_ENABLE"], "0");

  EXPECT_EQ(file("graphs.json")["runs"].size(), 3u);
  EXPECT_EQ(file("ipc.json")["runs"].size(), 1u);
  EXPECT_EQ(file("cublas.json")["runs"].size(), 1u);
}

TEST_F(FactsRunnerTest, OneGpuSkipsTwoGpuMeasurements) {
  ::setenv("FAKE_GPUS", "1", 1);
  EXPECT_EQ(run(), 0);
  const json summary = file("run.json");
  EXPECT_EQ(summary["nccl_ranks"], 1);
  int skipped = 0;
  for (const json& j : summary["jobs"]) {
    if (j["status"] == "skipped") {
      ++skipped;
      EXPECT_EQ(j["message"], "needs 2 GPUs, this machine has 1");
    }
  }
  EXPECT_EQ(skipped, 3);  // IPC and the two host-staged NCCL cases
}

TEST_F(FactsRunnerTest, AFailedMeasurementIsReportedAndTheRestGoesOn) {
  ::setenv("FAKE_GPUS", "2", 1);
  ::setenv("FAKE_FAIL_KIND", "cublas", 1);
  EXPECT_EQ(run(), 3);
  const json cublas = file("cublas.json");
  ASSERT_EQ(cublas["runs"].size(), 1u);
  const json& r = cublas["runs"][0];
  EXPECT_EQ(r["status"], "failed");
  EXPECT_NE(r["message"].get<std::string>().find("exited with code 3"), std::string::npos)
      << r["message"];
  EXPECT_EQ(r["ranks"][0]["error"], "fake failure of cublas");
  EXPECT_EQ(file("nccl.json")["runs"].size(), 27u);
}

TEST_F(FactsRunnerTest, ExhaustedBudgetSkipsTheRest) {
  ::setenv("FAKE_GPUS", "2", 1);
  EXPECT_EQ(run(std::chrono::seconds(0)), 3);
  const json summary = file("run.json");
  ASSERT_EQ(summary["jobs"].size(), 51u);
  for (const json& j : summary["jobs"]) {
    EXPECT_EQ(j["status"], "skipped");
    EXPECT_EQ(j["message"], "the run's time budget of 0 s was used up");
  }
}

}  // namespace
}  // namespace gpumem::probe
