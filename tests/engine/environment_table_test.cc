// Environment variables no engine model reads: accepted with no memory effect, or refused by
// name (engine/environment_table.h), in both engines.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/sglang/environment.h"
#include "engine/vllm/environment.h"

namespace gpumem {
namespace {

ScenarioEngine engine_with(std::vector<std::pair<std::string, std::string>> vars) {
  ScenarioEngine e;
  int line = 1;
  for (auto& [name, value] : vars) {
    e.env.push_back({name, value, {"s.yaml", line, 5}, {"s.yaml", line, 20}});
    ++line;
  }
  return e;
}

std::string vllm_errors(std::vector<std::pair<std::string, std::string>> vars) {
  Diagnostics diags;
  (void)vllm::read_environment(engine_with(std::move(vars)), diags);
  return diags.to_string();
}

std::string sglang_errors(std::vector<std::pair<std::string, std::string>> vars) {
  Diagnostics diags;
  (void)sglang::read_environment(engine_with(std::move(vars)), diags);
  return diags.to_string();
}

TEST(EnvironmentTable, NoMemoryEffectIsAccepted) {
  const std::vector<std::pair<std::string, std::string>> vars = {
      {"CUDA_VISIBLE_DEVICES", "0,1"}, {"HF_TOKEN", "hf_x"},     {"FOO", "1"},
      {"NCCL_DEBUG", "INFO"},          {"MASTER_PORT", "29500"}, {"OMP_NUM_THREADS", "8"},
      {"CUDA_MODULE_LOADING", "LAZY"}};
  EXPECT_EQ(sglang_errors(vars), "");
  EXPECT_EQ(vllm_errors(vars), "");
  EXPECT_EQ(vllm_errors({{"VLLM_LOGGING_LEVEL", "DEBUG"}, {"VLLM_USE_V1", "1"}}), "");
  EXPECT_EQ(sglang_errors({{"SGLANG_USE_MODELSCOPE", "true"}}), "");
  // ROCm-only variables (an MI300X recipe simulated on a catalog GPU).
  EXPECT_EQ(vllm_errors({{"VLLM_ROCM_USE_AITER", "1"}, {"VLLM_USE_TRITON_FLASH_ATTN", "0"}}), "");
}

TEST(EnvironmentTable, MemoryEffectNotModelledIsRefusedByName) {
  EXPECT_EQ(vllm_errors({{"CUDA_MODULE_LOADING", "EAGER"}}),
            "s.yaml:1:5: CUDA_MODULE_LOADING=EAGER changes start-up memory in a way gpumem does "
            "not model: CUDA_MODULE_LOADING=EAGER loads every kernel module when the context is "
            "created (1,259 MiB instead of 527 MiB for a PyTorch process on an H200), every "
            "cuBLAS kernel at the first GEMM (494 MiB instead of 66) and NCCL's at its first "
            "communicator (686 MiB instead of 614; reports/probe/h200x1/torch-facts/"
            "torch_facts_eager.json); gpumem models lazy loading, CUDA 12.2's default; remove it "
            "to simulate without it\n");
  EXPECT_EQ(vllm_errors({{"VLLM_USE_V1", "0"}}),
            "s.yaml:1:5: VLLM_USE_V1=0 changes start-up memory in a way gpumem does not model: "
            "VLLM_USE_V1=0 runs the V0 engine; gpumem models the V1 engine; remove it to "
            "simulate without it\n");
}

TEST(EnvironmentTable, UnknownVariableOfALoadedLibraryIsRefused) {
  EXPECT_EQ(vllm_errors({{"VLLM_ATENTION_BACKEND", "FLASHINFER"}}),
            "s.yaml:1:5: unknown environment variable 'VLLM_ATENTION_BACKEND': vLLM, PyTorch, "
            "CUDA or NCCL may read it and gpumem cannot tell its memory effect; remove it to "
            "simulate without it; did you mean 'VLLM_ATTENTION_BACKEND'?\n");
  EXPECT_EQ(sglang_errors({{"SGL_ENABLE_JIT_DEEPGEM", "1"}, {"NCCL_PROTOCOL", "LL"}}),
            "s.yaml:1:5: unknown environment variable 'SGL_ENABLE_JIT_DEEPGEM': SGLang, "
            "PyTorch, CUDA or NCCL may read it and gpumem cannot tell its memory effect; remove "
            "it to simulate without it; did you mean 'SGLANG_ENABLE_JIT_DEEPGEMM'?\n"
            "s.yaml:2:5: unknown environment variable 'NCCL_PROTOCOL': SGLang, PyTorch, CUDA or "
            "NCCL may read it and gpumem cannot tell its memory effect; remove it to simulate "
            "without it; did you mean 'NCCL_PROTO'?\n");
  // Another engine's variable is no memory effect to this one (a shell exports both).
  EXPECT_EQ(sglang_errors({{"VLLM_USE_V1", "0"}}), "");
}

// PYTORCH_CUDA_ALLOC_CONF is read into the allocator model's settings
// (engine/allocator_environment.h): modelled options set it, host-side ones are accepted,
// the rest is refused at the value with PyTorch's reason or its own message.
TEST(AllocatorEnvironment, ModelledOptionsSetTheAllocator) {
  for (const char* name : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
    Diagnostics diags;
    const sglang::Environment env = sglang::read_environment(
        engine_with({{name,
                      "expandable_segments:True, max_split_size_mb:512,"
                      "pinned_use_background_threads:True,backend:native"}}),
        diags);
    EXPECT_EQ(diags.to_string(), "");
    EXPECT_TRUE(env.allocator.config.expandable_segments);
    EXPECT_EQ(env.allocator.config.max_split_size, mib(512));
    EXPECT_EQ(env.allocator.config.max_non_split_rounding, mib(20));
  }
  Diagnostics diags;
  const vllm::Environment env = vllm::read_environment(
      engine_with({{"PYTORCH_CUDA_ALLOC_CONF", "max_non_split_rounding_mb:64"},
                   {"PYTORCH_ALLOC_CONF", "max_non_split_rounding_mb:64"}}),
      diags);
  EXPECT_EQ(diags.to_string(), "");
  EXPECT_EQ(env.allocator.config.max_non_split_rounding, mib(64));
  EXPECT_FALSE(env.allocator.config.expandable_segments);
}

TEST(AllocatorEnvironment, WhatIsNotModelledOrWrongIsRefusedAtTheValue) {
  EXPECT_EQ(sglang_errors({{"PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0.6"}}),
            "s.yaml:1:20: PYTORCH_CUDA_ALLOC_CONF option 'garbage_collection_threshold' is not "
            "modelled: it frees cached blocks once reserved memory passes the threshold\n");
  EXPECT_EQ(vllm_errors({{"PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync"}}),
            "s.yaml:1:20: PYTORCH_CUDA_ALLOC_CONF option 'backend' is not modelled: "
            "backend:cudaMallocAsync replaces the caching allocator by CUDA's stream-ordered "
            "pools\n");
  EXPECT_EQ(vllm_errors({{"PYTORCH_CUDA_ALLOC_CONF", "backend:native2"}}),
            "s.yaml:1:20: PYTORCH_CUDA_ALLOC_CONF: Unknown allocator backend, options are native "
            "and cudaMallocAsync\n");
  EXPECT_EQ(sglang_errors({{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segment:True"}}),
            "s.yaml:1:20: PYTORCH_CUDA_ALLOC_CONF: Unrecognized CachingAllocator option: "
            "expandable_segment; did you mean 'expandable_segments'?\n");
  EXPECT_EQ(sglang_errors({{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:true"}}),
            "s.yaml:1:20: PYTORCH_CUDA_ALLOC_CONF: Expected a single True/False argument for "
            "expandable_segments\n");
  EXPECT_EQ(vllm_errors({{"PYTORCH_ALLOC_CONF", "max_split_size_mb:8"}}),
            "s.yaml:1:20: PYTORCH_ALLOC_CONF: CachingAllocator option max_split_size_mb too "
            "small, must be >= 20\n");
  EXPECT_EQ(vllm_errors({{"PYTORCH_ALLOC_CONF", "max_split_size_mb:lots"}}),
            "s.yaml:1:20: PYTORCH_ALLOC_CONF: max_split_size_mb takes a whole number of MiB, got "
            "'lots'\n");
  EXPECT_EQ(vllm_errors({{"PYTORCH_ALLOC_CONF", "max_split_size_mb:99999999999999999999"}}),
            "s.yaml:1:20: PYTORCH_ALLOC_CONF: max_split_size_mb takes a whole number of MiB, got "
            "'99999999999999999999'\n");
  EXPECT_EQ(vllm_errors({{"PYTORCH_ALLOC_CONF", "max_split_size_mb:-64"}}),
            "s.yaml:1:20: PYTORCH_ALLOC_CONF: max_split_size_mb takes a whole number of MiB, got "
            "'-64'\n");
  EXPECT_EQ(sglang_errors({{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments"}}),
            "s.yaml:1:20: PYTORCH_CUDA_ALLOC_CONF: Expected a single True/False argument for "
            "expandable_segments\n");
  EXPECT_EQ(sglang_errors({{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"},
                           {"PYTORCH_ALLOC_CONF", "expandable_segments:False"}}),
            "s.yaml:2:20: PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF are both set, to "
            "different values; set only one\n");
}

}  // namespace
}  // namespace gpumem
