#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "catalog/gpu_catalog.h"

namespace gpumem {
namespace {

constexpr const char* kEntry =
    "name: g\n"
    "nvidia_smi_name: G\n"
    "memory_total: 1GiB\n"
    "compute_capability: \"8.9\"\n"
    "sm_count: SMS\n"
    "max_threads_per_sm: 1536\n"
    "interconnect: pcie\n";

std::string entry_with_sms(const std::string& sms) {
  std::string text = kEntry;
  text.replace(text.find("SMS"), 3, sms);
  return text;
}

TEST(GpuEntry, ReadsEveryFact) {
  Diagnostics diags;
  std::optional<GpuSpec> g = parse_gpu_entry("g.yaml", entry_with_sms("128"), diags);
  ASSERT_TRUE(g.has_value()) << diags.to_string();
  EXPECT_EQ(g->memory_total.value(), 1'073'741'824);
  EXPECT_EQ(g->sm_count, 128);
  EXPECT_EQ(g->max_threads_per_sm, 1536);
  EXPECT_EQ(g->compute_capability_major, 8);
  EXPECT_EQ(g->interconnect, Interconnect::kPcie);
}

// Found by fuzzing: `sm_count: 0` was read as a GPU without multiprocessors.
TEST(GpuEntry, UnitCountsMustBePositive) {
  for (const char* bad : {"0", "-4", "4294967296"}) {
    Diagnostics diags;
    EXPECT_FALSE(parse_gpu_entry("g.yaml", entry_with_sms(bad), diags).has_value());
    EXPECT_EQ(diags.to_string(),
              std::string("g.yaml:5:11: 'sm_count' must be a positive count, got ") + bad + "\n");
  }
}

}  // namespace
}  // namespace gpumem
