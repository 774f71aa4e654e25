// Variables of the newest engine releases (vLLM's envs.py, SGLang's environ.py), of NCCL's
// user guide and of the libraries users set in front of launch commands: accepted where they
// change no GPU memory, refused by name where gpumem does not model what they change, unless
// they hold the default; SGLang's SGL_ names are read as its SGLANG_ ones.
#include "engine/sglang/newest_environment.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/library_environment.h"
#include "engine/sglang/environment.h"
#include "engine/vllm/environment.h"
#include "engine/vllm/newest_environment.h"

namespace gpumem {
namespace {

using Vars = std::vector<std::pair<std::string, std::string>>;

ScenarioEngine engine_with(const Vars& vars) {
  ScenarioEngine e;
  int line = 1;
  for (const auto& [name, value] : vars) {
    e.env.push_back({name, value, {"s.yaml", line, 5}, {"s.yaml", line, 20}});
    ++line;
  }
  return e;
}

std::string vllm_errors(const Vars& vars) {
  Diagnostics diags;
  (void)vllm::read_environment(engine_with(vars), diags);
  return diags.to_string();
}

std::string sglang_errors(const Vars& vars) {
  Diagnostics diags;
  (void)sglang::read_environment(engine_with(vars), diags);
  return diags.to_string();
}

TEST(NewestEnvironment, HostSideVariablesOfTheNewestReleasesAreAccepted) {
  EXPECT_EQ(vllm_errors({{"VLLM_TARGET_DEVICE", "cuda"},
                         {"VLLM_CPU_KVCACHE_SPACE", "40"},
                         {"VLLM_USE_FLASHINFER_SAMPLER", "1"},
                         {"TRITON_CACHE_DIR", "/cache/triton"},
                         {"NCCL_IB_DISABLE", "1"},
                         {"CUDA_DEVICE_MAX_CONNECTIONS", "8"}}),
            "");
  EXPECT_EQ(sglang_errors({{"SGLANG_TORCH_PROFILER_DIR", "/tmp/prof"},
                           {"SGLANG_GC_LOG", "1"},
                           {"TORCHINDUCTOR_CACHE_DIR", "/cache/inductor"}}),
            "");
}

TEST(NewestEnvironment, MemoryEffectsNotModelledAreRefusedUnlessAtTheDefault) {
  EXPECT_EQ(vllm_errors({{"VLLM_BATCH_INVARIANT", "0"}}), "");
  EXPECT_EQ(vllm_errors({{"VLLM_BATCH_INVARIANT", "1"}}),
            "s.yaml:1:5: VLLM_BATCH_INVARIANT=1 changes start-up memory in a way gpumem does not "
            "model: swaps attention/matmul/MoE/all-reduce kernels for batch-invariant ones and "
            "can force backends; workspaces and captured graphs differ; remove it to simulate "
            "without it\n");
  EXPECT_EQ(vllm_errors({{"VLLM_USE_FLASHINFER_SAMPLER", "0"}}),
            "s.yaml:1:5: VLLM_USE_FLASHINFER_SAMPLER=0 changes start-up memory in a way gpumem "
            "does not model: the sampler's temporaries are part of the dummy-sampler peak during "
            "profiling; the two paths allocate differently; remove it to simulate without it\n");
  // vLLM trusts the driver's P2P report by default (VLLM_SKIP_P2P_CHECK "1"); its own test
  // is what is refused.
  EXPECT_EQ(vllm_errors({{"VLLM_SKIP_P2P_CHECK", "1"}}), "");
  EXPECT_EQ(vllm_errors({{"VLLM_SKIP_P2P_CHECK", "0"}}),
            "s.yaml:1:5: VLLM_SKIP_P2P_CHECK=0 changes start-up memory in a way gpumem does not "
            "model: vLLM's own P2P test instead of the driver's report decides whether custom "
            "all-reduce runs; not modelled; remove it to simulate without it\n");
  EXPECT_EQ(sglang_errors({{"NCCL_ALGO", "Ring"}}),
            "s.yaml:1:5: NCCL_ALGO=Ring changes start-up memory in a way gpumem does not model: "
            "only the connections of allowed algorithms get buffers (e.g. no NVLS buffers "
            "without NVLS); remove it to simulate without it\n");
}

// sglang environ.py _handle_deprecated_envs: SGL_X is read as SGLANG_X, and the old
// SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK as the inverse of the check gpumem models.
TEST(NewestEnvironment, SglangsOlderNamesAreReadAsTheNewOnes) {
  Diagnostics diags;
  const sglang::Environment env =
      sglang::read_environment(engine_with({{"SGL_CUSTOM_ALLREDUCE_ALGO", "2stage"},
                                            {"SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK", "1"}}),
                               diags);
  EXPECT_EQ(diags.to_string(), "");
  EXPECT_EQ(env.custom_allreduce_algo, sglang::AllReduceAlgo::kTwoStage);
  EXPECT_EQ(env.tp_memory_imbalance_is_error, false);
  // environment.cc's own rules count too: SGL_USE_MODELSCOPE is SGLANG_USE_MODELSCOPE.
  EXPECT_EQ(sglang_errors({{"SGL_USE_MODELSCOPE", "true"}}), "");
}

// Each table names a variable once, and no newest-release table repeats one the engine
// models or lists already (the first rule found would hide the other).
TEST(NewestEnvironment, EveryVariableIsListedOnce) {
  for (const auto& [title, rules] : {std::pair{"vLLM", vllm::newest_environment_rules()},
                                     std::pair{"SGLang", sglang::newest_environment_rules()},
                                     std::pair{"libraries", library_environment_rules()}}) {
    std::set<std::string_view> seen;
    for (const EnvRule& r : rules) {
      EXPECT_TRUE(seen.insert(r.name).second) << title << " " << r.name;
      EXPECT_FALSE(r.why.empty()) << r.name;
    }
    EXPECT_GT(seen.size(), 100u) << title;
  }
  for (std::string_view n : vllm::modelled_variables()) {
    for (const EnvRule& r : vllm::newest_environment_rules()) EXPECT_NE(r.name, n);
    for (const EnvRule& r : library_environment_rules()) EXPECT_NE(r.name, n);
  }
  for (std::string_view n : sglang::modelled_variables()) {
    for (const EnvRule& r : sglang::newest_environment_rules()) EXPECT_NE(r.name, n);
  }
}

}  // namespace
}  // namespace gpumem
