#include "probe/sample.h"

#include <gtest/gtest.h>

namespace gpumem::probe {
namespace {

TEST(Sample, AbsentFieldsAreNullNeverZero) {
  Sample s;
  s.t_mono_s = 12.5;
  s.cuda_free = bytes(150'000'000'000);
  s.cuda_total = bytes(150'109'192'192);
  const nlohmann::json j = to_json(s);
  EXPECT_EQ(j["t_mono_s"], 12.5);
  EXPECT_EQ(j["cuda_free"], 150'000'000'000);
  EXPECT_EQ(j["cuda_total"], 150'109'192'192);
  EXPECT_TRUE(j["nvml_used"].is_null());
  EXPECT_TRUE(j["nvml_v2_reserved"].is_null());
  EXPECT_TRUE(j["process_used"].is_null());
  EXPECT_EQ(j.size(), 11u);
}

TEST(Sample, DeltaIsAfterMinusBefore) {
  Sample before;
  before.t_mono_s = 1.0;
  before.cuda_free = bytes(1'000'000'000);
  before.nvml_used = bytes(600'000'000);
  Sample after;
  after.t_mono_s = 1.25;
  after.cuda_free = bytes(1'000'000'000 - 2'097'152);
  after.nvml_used = bytes(602'097'152);
  after.process_used = bytes(5);  // absent before: no delta
  const nlohmann::json d = delta_json(before, after);
  EXPECT_EQ(d["t_s"], 0.25);
  EXPECT_EQ(d["cuda_free"], -2'097'152);
  EXPECT_EQ(d["nvml_used"], 2'097'152);
  EXPECT_TRUE(d["process_used"].is_null());
  EXPECT_TRUE(d["cuda_total"].is_null());
}

TEST(Sample, WithoutNvmlOnlyTheTimeIsSet) {
  const Sample s = sample_nvml(nullptr, nullptr);
  EXPECT_GT(s.t_mono_s, 0.0);
  EXPECT_FALSE(s.nvml_total.has_value());
  EXPECT_FALSE(s.process_used.has_value());
}

TEST(Sample, LogListsLevelsAndIncrements) {
  Sample a;
  a.t_mono_s = 10.0;
  a.cuda_free = bytes(100'000'000);
  Sample b = a;
  b.t_mono_s = 10.5;
  b.cuda_free = bytes(100'000'000 - 10'485'760);
  Sample c = b;
  c.t_mono_s = 11.0;
  c.cuda_free = bytes(100'000'000 - 12'582'912);
  SampleLog log;
  log.add("before", a);
  log.add("after_init", b);
  log.add("after_all_reduce", c);
  const nlohmann::json j = log.to_json();
  ASSERT_EQ(j["samples"].size(), 3u);
  EXPECT_EQ(j["samples"][1]["at"], "after_init");
  EXPECT_EQ(j["samples"][1]["cuda_free"], 89'514'240);
  ASSERT_EQ(j["deltas"].size(), 2u);
  EXPECT_EQ(j["deltas"][0]["step"], "after_init");
  EXPECT_EQ(j["deltas"][0]["cuda_free"], -10'485'760);
  EXPECT_EQ(j["deltas"][1]["cuda_free"], -2'097'152);
  EXPECT_EQ(j["deltas"][1]["t_s"], 0.5);
  ASSERT_TRUE(cuda_taken(a, c).has_value());
  EXPECT_EQ(cuda_taken(a, c)->value(), 12'582'912);
  EXPECT_FALSE(cuda_taken(Sample{}, c).has_value());
}

}  // namespace
}  // namespace gpumem::probe
