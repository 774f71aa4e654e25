#include "probe/rank_env.h"

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

std::string error_of(std::map<std::string, std::string> vars) {
  auto r = rank_env_from(env_of(std::move(vars)));
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  return r.status().message();
}

TEST(RankEnv, NoLauncherMeansTheProbeLaunches) {
  auto r = rank_env_from(env_of({{"PATH", "/bin"}}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST(RankEnv, Torchrun) {
  auto r = rank_env_from(env_of({{"RANK", "3"},
                                 {"WORLD_SIZE", "8"},
                                 {"LOCAL_RANK", "1"},
                                 {"MASTER_ADDR", "node0"},
                                 {"MASTER_PORT", "29500"}}));
  ASSERT_TRUE(r.ok() && r->has_value());
  const RankEnv& e = **r;
  EXPECT_EQ(e.launcher, Launcher::kTorchrun);
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.world_size, 8);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.master_addr, "node0");
  EXPECT_EQ(e.master_port, 29500);
  EXPECT_EQ(launcher_name(e.launcher), "torchrun");
}

TEST(RankEnv, ProbeChildrenAreLabelled) {
  auto r = rank_env_from(env_of({{"RANK", "0"},
                                 {"WORLD_SIZE", "2"},
                                 {"LOCAL_RANK", "0"},
                                 {"MASTER_ADDR", "127.0.0.1"},
                                 {"MASTER_PORT", "41000"},
                                 {"GPUMEM_PROBE_LAUNCHER", "fork"}}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->launcher, Launcher::kProbe);
}

TEST(RankEnv, OpenMpi) {
  auto r = rank_env_from(env_of({{"OMPI_COMM_WORLD_RANK", "5"},
                                 {"OMPI_COMM_WORLD_SIZE", "16"},
                                 {"OMPI_COMM_WORLD_LOCAL_RANK", "5"},
                                 {"MASTER_ADDR", "10.1.2.3"},
                                 {"MASTER_PORT", "12345"}}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->launcher, Launcher::kOpenMpi);
  EXPECT_EQ((*r)->rank, 5);
  EXPECT_EQ((*r)->world_size, 16);
  EXPECT_EQ((*r)->local_rank, 5);
}

TEST(RankEnv, PmiFallsBackToSlurmLocalId) {
  auto r = rank_env_from(env_of({{"PMI_RANK", "9"},
                                 {"PMI_SIZE", "16"},
                                 {"SLURM_LOCALID", "1"},
                                 {"MASTER_ADDR", "10.1.2.3"},
                                 {"MASTER_PORT", "12345"}}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->launcher, Launcher::kPmi);
  EXPECT_EQ((*r)->rank, 9);
  EXPECT_EQ((*r)->local_rank, 1);
}

TEST(RankEnv, ErrorsNameTheVariable) {
  const std::map<std::string, std::string> ok = {{"RANK", "1"},
                                                 {"WORLD_SIZE", "2"},
                                                 {"LOCAL_RANK", "1"},
                                                 {"MASTER_ADDR", "127.0.0.1"},
                                                 {"MASTER_PORT", "29500"}};
  auto with = [&](std::string k, std::optional<std::string> v) {
    auto m = ok;
    if (v) {
      m[k] = *v;
    } else {
      m.erase(k);
    }
    return m;
  };
  EXPECT_EQ(error_of(with("RANK", "2")), "RANK=2 is outside 0..1");
  EXPECT_EQ(error_of(with("RANK", "one")), "RANK='one' is not an integer");
  EXPECT_EQ(error_of(with("WORLD_SIZE", std::nullopt)), "WORLD_SIZE is not set");
  EXPECT_EQ(error_of(with("LOCAL_RANK", std::nullopt)),
            "LOCAL_RANK (the GPU of this rank): LOCAL_RANK is not set");
  EXPECT_EQ(error_of(with("MASTER_PORT", "70000")), "MASTER_PORT=70000 is not a TCP port");
  EXPECT_EQ(error_of(with("MASTER_ADDR", std::nullopt)),
            "MASTER_ADDR is not set; torchrun sets the rank variables but the probe also needs "
            "MASTER_ADDR and MASTER_PORT (rank 0's address and a free TCP port)");
}

}  // namespace
}  // namespace gpumem::probe
