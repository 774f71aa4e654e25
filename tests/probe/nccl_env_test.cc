#include "probe/nccl_env.h"

#include <gtest/gtest.h>

#include <map>

namespace gpumem::probe {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(NcclEnv, ExpectationsCoverEverySetting) {
  NcclSettings s;
  s.cumem_enable = false;
  s.buffsize = mib(1);
  s.min_channels = 2;
  s.max_channels = 2;
  s.p2p_level = "LOC";
  auto e = nccl_env_expectations(s);
  ASSERT_TRUE(e.ok());
  const std::vector<NcclEnvExpectation> want = {{"NCCL_CUMEM_ENABLE", "0"},
                                                {"NCCL_RUNTIME_CONNECT", std::nullopt},
                                                {"NCCL_BUFFSIZE", "1048576"},
                                                {"NCCL_LL_BUFFSIZE", std::nullopt},
                                                {"NCCL_LL128_BUFFSIZE", std::nullopt},
                                                {"NCCL_MIN_NCHANNELS", "2"},
                                                {"NCCL_MIN_CTAS", std::nullopt},
                                                {"NCCL_MAX_NCHANNELS", "2"},
                                                {"NCCL_MAX_CTAS", std::nullopt},
                                                {"NCCL_P2P_DISABLE", std::nullopt},
                                                {"NCCL_P2P_LEVEL", "LOC"},
                                                {"NCCL_NVLS_ENABLE", "0"}};
  EXPECT_EQ(*e, want);
}

TEST(NcclEnv, MulticastIsRefused) {
  NcclSettings s;
  s.nvls_enable = true;
  auto e = nccl_env_expectations(s);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidInput);
}

TEST(NcclEnv, CheckAcceptsAMatchingEnvironment) {
  NcclSettings s;
  s.runtime_connect = true;
  EXPECT_TRUE(check_nccl_env(s, env_of({{"NCCL_RUNTIME_CONNECT", "1"},
                                        {"NCCL_NVLS_ENABLE", "0"},
                                        {"NCCL_DEBUG", "INFO"}}))
                  .ok());
}

TEST(NcclEnv, CheckNamesTheMismatch) {
  NcclSettings defaults;
  const Status extra =
      check_nccl_env(defaults, env_of({{"NCCL_BUFFSIZE", "1048576"}, {"NCCL_NVLS_ENABLE", "0"}}));
  EXPECT_EQ(extra.message(),
            "the NCCL settings need NCCL_BUFFSIZE unset but this process has "
            "NCCL_BUFFSIZE=1048576; NCCL reads its variables once per process, so the launcher "
            "must set them before the ranks start");
  NcclSettings cumem_off;
  cumem_off.cumem_enable = false;
  const Status missing = check_nccl_env(cumem_off, env_of({{"NCCL_NVLS_ENABLE", "0"}}));
  EXPECT_EQ(missing.message(),
            "the NCCL settings need NCCL_CUMEM_ENABLE=0 but this process has NCCL_CUMEM_ENABLE "
            "unset; NCCL reads its variables once per process, so the launcher must set them "
            "before the ranks start");
  const Status no_nvls_var = check_nccl_env(defaults, env_of({}));
  EXPECT_EQ(no_nvls_var.code(), StatusCode::kInvalidInput);
}

TEST(NcclEnv, SettingsFromEnvironmentRoundTrip) {
  auto s = nccl_settings_from_env(env_of({{"NCCL_CUMEM_ENABLE", "0"},
                                          {"NCCL_BUFFSIZE", "1048576"},
                                          {"NCCL_MIN_NCHANNELS", "8"},
                                          {"NCCL_MAX_NCHANNELS", "8"},
                                          {"NCCL_P2P_LEVEL", "LOC"},
                                          {"NCCL_NVLS_ENABLE", "0"}}));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->cumem_enable, false);
  EXPECT_FALSE(s->runtime_connect.has_value());
  ASSERT_TRUE(s->buffsize.has_value());
  EXPECT_EQ(s->buffsize->value(), 1'048'576);
  EXPECT_EQ(s->min_channels, 8);
  EXPECT_EQ(s->max_channels, 8);
  EXPECT_EQ(s->p2p_level, "LOC");
  EXPECT_EQ(s->nvls_enable, false);
  // What the settings expect is exactly the environment they came from.
  EXPECT_TRUE(check_nccl_env(*s, env_of({{"NCCL_CUMEM_ENABLE", "0"},
                                         {"NCCL_BUFFSIZE", "1048576"},
                                         {"NCCL_MIN_NCHANNELS", "8"},
                                         {"NCCL_MAX_NCHANNELS", "8"},
                                         {"NCCL_P2P_LEVEL", "LOC"},
                                         {"NCCL_NVLS_ENABLE", "0"}}))
                  .ok());
}

TEST(NcclEnv, SettingsFromEnvironmentErrors) {
  EXPECT_EQ(nccl_settings_from_env(env_of({{"NCCL_BUFFSIZE", "4MiB"}, {"NCCL_NVLS_ENABLE", "0"}}))
                .status()
                .message(),
            "NCCL_BUFFSIZE='4MiB' is not a non-negative integer (NCCL takes plain numbers: bytes "
            "for sizes)");
  EXPECT_EQ(
      nccl_settings_from_env(env_of({{"NCCL_CUMEM_ENABLE", "yes"}, {"NCCL_NVLS_ENABLE", "0"}}))
          .status()
          .message(),
      "NCCL_CUMEM_ENABLE='yes': gpumem reads this variable as 0 or 1");
  EXPECT_EQ(nccl_settings_from_env(env_of({{"NCCL_MIN_CTAS", "4"}})).status().message(),
            "NCCL_MIN_CTAS is set; gpumem models the channel bounds as "
            "NCCL_MIN_NCHANNELS/NCCL_MAX_NCHANNELS, use those");
  EXPECT_EQ(nccl_settings_from_env(env_of({})).status().message(),
            "NCCL_NVLS_ENABLE must be 0: gpumem never enables NVLink multicast");
}

}  // namespace
}  // namespace gpumem::probe
