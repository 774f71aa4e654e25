#include "probe/nvml.h"

#include <gtest/gtest.h>

namespace gpumem::probe {
namespace {

TEST(Nvml, VisibleDevicesUnsetMeansPciOrder) {
  auto e = visible_device_entry(std::nullopt, 3);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->nvml_index, 3);
  EXPECT_FALSE(e->uuid_prefix.has_value());
}

TEST(Nvml, VisibleDevicesIndicesAndUuids) {
  auto i = visible_device_entry("2,3", 1);
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->nvml_index, 3);
  auto u = visible_device_entry("GPU-8f2a1c, 0", 0);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->uuid_prefix, "GPU-8f2a1c");
  auto spaced = visible_device_entry("GPU-8f2a1c, 0", 1);
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(spaced->nvml_index, 0);
}

TEST(Nvml, VisibleDevicesErrors) {
  EXPECT_EQ(visible_device_entry("0,1", 2).status().message(),
            "CUDA device 2 does not exist: CUDA_VISIBLE_DEVICES='0,1' lists 2 device(s)");
  EXPECT_EQ(
      visible_device_entry("MIG-1234", 0).status().message(),
      "CUDA_VISIBLE_DEVICES entry 'MIG-1234' is a MIG instance; the probe measures whole GPUs");
  EXPECT_EQ(visible_device_entry("first", 0).status().message(),
            "CUDA_VISIBLE_DEVICES entry 'first' is neither an index nor a GPU UUID");
}

TEST(Nvml, TopologyLevelNames) {
  EXPECT_EQ(topology_level_name(0), "internal");
  EXPECT_EQ(topology_level_name(30), "host_bridge");
  EXPECT_EQ(topology_level_name(50), "system");
  EXPECT_EQ(topology_level_name(7), "unknown");
}

TEST(Nvml, LoadReportsAbsenceAsNotFound) {
  auto nvml = Nvml::load();
  if (nvml.ok()) GTEST_SKIP() << "this machine has NVML; absence cannot be observed here";
  EXPECT_EQ(nvml.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(nvml.status().message().rfind("NVML is not ", 0), 0u) << nvml.status().message();
}

}  // namespace
}  // namespace gpumem::probe
