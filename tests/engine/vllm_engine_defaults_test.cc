// What vLLM fills in: versions and their rules, the batch defaults by GPU class, the CUDA
// graph capture sizes of both families, the graphs the dispatcher captures per mode, the
// derived and default maximum model length and the all-reduce helpers of a TP group.
#include <gtest/gtest.h>

#include "engine/vllm/custom_all_reduce.h"
#include "engine/vllm/engine_defaults.h"
#include "engine/vllm/model_facts.h"
#include "engine/vllm/version.h"
#include "runtime/fact_ids.h"
#include "support/family_simulation.h"
#include "support/test_catalogs.h"

namespace gpumem::vllm {
namespace {

const VersionRules kV0_10_2 = rules_for({0, 10, 2, 0});
const VersionRules kV0_21 = rules_for({0, 21, 0, 0});

TEST(VllmVersion, ParsesAndBoundsTheModelledRange) {
  EXPECT_EQ(parse_version("0.10.1.1"), (Version{0, 10, 1, 1}));
  EXPECT_EQ(parse_version("v0.21.0"), (Version{0, 21, 0, 0}));
  EXPECT_EQ(parse_version("0.11.0.post1"), (Version{0, 11, 0, 0}));
  EXPECT_FALSE(parse_version("0.10"));
  EXPECT_FALSE(parse_version("0.10.2rc1"));
  EXPECT_FALSE(is_modelled({0, 10, 0, 0}));
  EXPECT_TRUE(is_modelled({0, 10, 1, 1}));
  EXPECT_TRUE(is_modelled({0, 21, 3, 0}));
  EXPECT_TRUE(is_modelled({0, 22, 0, 0}));
  EXPECT_TRUE(is_modelled({0, 30, 2, 0}));
  EXPECT_FALSE(is_modelled({0, 31, 0, 0}));
  EXPECT_EQ(modelled_range(), "0.10.1 to 0.30.x");
}

TEST(VllmVersion, Families) {
  EXPECT_EQ(kV0_10_2.default_gpu_memory_utilization, 0.9);
  EXPECT_EQ(kV0_21.default_gpu_memory_utilization, 0.92);
  EXPECT_FALSE(rules_for({0, 20, 2, 0}).cudagraph_estimate_default_on);
  EXPECT_TRUE(kV0_21.cudagraph_estimate_default_on);
  EXPECT_TRUE(rules_for({0, 10, 1, 1}).forces_nccl_cumem_off);
  EXPECT_FALSE(kV0_10_2.forces_nccl_cumem_off);
  EXPECT_FALSE(kV0_10_2.snapshot_after_distributed);
  EXPECT_TRUE(rules_for({0, 11, 0, 0}).snapshot_after_distributed);
}

TEST(VllmDefaults, BatchDefaultsByGpu) {
  // get_batch_defaults, `vllm serve`: >= 70 GiB and not an A100 -> 8192 tokens, 1024 seqs.
  const BatchDefaults h100 = batch_defaults({mib(81090), "NVIDIA H100 80GB HBM3"}, false);
  EXPECT_EQ(h100.max_num_batched_tokens, 8192);
  EXPECT_EQ(h100.max_num_seqs, 1024);
  const BatchDefaults a100 = batch_defaults({mib(81050), "NVIDIA A100-SXM4-80GB"}, false);
  EXPECT_EQ(a100.max_num_batched_tokens, 2048);
  EXPECT_EQ(a100.max_num_seqs, 256);
  EXPECT_EQ(batch_defaults({mib(45589), "NVIDIA L40S"}, false).max_num_seqs, 256);
  // The LLM class (UsageContext.LLM_CLASS): 16384 and 1024, else 8192 and 256.
  const BatchDefaults offline = batch_defaults({mib(81090), "NVIDIA H100 80GB HBM3"}, true);
  EXPECT_EQ(offline.max_num_batched_tokens, 16384);
  EXPECT_EQ(offline.max_num_seqs, 1024);
  const BatchDefaults small = batch_defaults({mib(45589), "NVIDIA L40S"}, true);
  EXPECT_EQ(small.max_num_batched_tokens, 8192);
  EXPECT_EQ(small.max_num_seqs, 256);
}

// `entry: offline` (the Python LLM class) batches 16,384 tokens on an H200 where `vllm serve`
// batches 8,192; an unknown entry is refused with a suggestion, and SGLang takes only serve.
TEST(VllmDefaults, TheOfflineEntryTakesTheLlmClassBatchDefaults) {
  const std::string scenario =
      "hardware: {gpu: h200, count: 1}\nengine:\n  name: vllm\n  version: 0.21.0\n"
      "  entry: ENTRY\nmodel: llama-3.1-8b-instruct\n";
  const auto with_entry = [&](const std::string& entry) {
    std::string text = scenario;
    text.replace(text.find("ENTRY"), 5, entry);
    return text;
  };
  const auto batched = [](const Ledger& l) {
    for (const Fact& f : l.facts) {
      if (f.id == fact_id::kMaxNumBatchedTokens) return std::get<std::int64_t>(f.value);
    }
    return std::int64_t{-1};
  };
  EXPECT_EQ(batched(scenario_ledger(with_entry("serve"))), 8192);
  EXPECT_EQ(batched(scenario_ledger(with_entry("offline"))), 16384);
  EXPECT_EQ(scenario_errors(with_entry("ofline")),
            "f.yaml:5:10: unknown entry 'ofline'; expected serve (vllm serve) or offline (the "
            "Python LLM class); did you mean 'offline'?\n");
  EXPECT_EQ(scenario_errors("hardware: {gpu: h200, count: 1}\nengine:\n  name: sglang\n"
                            "  version: 0.5.9\n  entry: offline\nmodel: llama-3.1-8b-instruct\n"),
            "f.yaml:5:10: entry 'offline' is not modelled for SGLang: its server (entry serve) "
            "is\n");
}

TEST(VllmDefaults, CaptureSizesTwoStepFamily) {
  // [1, 2, 4] + range(8, 256, 8) + range(256, 513, 16): 3 + 31 + 17 = 51 sizes.
  const std::vector<std::int64_t> s = cudagraph_capture_sizes(kV0_21, 256, 8192, 0, {}, 0);
  ASSERT_EQ(s.size(), 51u);
  EXPECT_EQ((std::vector<std::int64_t>(s.begin(), s.begin() + 5)),
            (std::vector<std::int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(s[33], 248);
  EXPECT_EQ(s[34], 256);
  EXPECT_EQ(s[35], 272);
  EXPECT_EQ(s.back(), 512);
  // max_num_seqs 128: min(256, 512) = 256 -> 3 + 31 + 1.
  EXPECT_EQ(cudagraph_capture_sizes(kV0_21, 128, 8192, 0, {}, 0).size(), 35u);
  // Three speculative tokens: min(64 x 4 x 2, 512) = 512.
  EXPECT_EQ(cudagraph_capture_sizes(kV0_21, 64, 8192, 3, {}, 0).back(), 512);
  // An explicit maximum of 300 stops at 288; max_num_batched_tokens 100 caps the maximum
  // and, from v0.21, joins the list: [1, 2, 4, 8..96, 100].
  EXPECT_EQ(cudagraph_capture_sizes(kV0_21, 256, 8192, 0, {}, 300).back(), 288);
  const std::vector<std::int64_t> capped = cudagraph_capture_sizes(kV0_21, 256, 100, 0, {}, 0);
  ASSERT_EQ(capped.size(), 16u);
  EXPECT_EQ(capped[14], 96);
  EXPECT_EQ(capped[15], 100);
  // A user list is deduplicated, sorted and cut at max_num_batched_tokens.
  EXPECT_EQ(cudagraph_capture_sizes(kV0_21, 256, 100, 0, {64, 8, 200, 8}, 0),
            (std::vector<std::int64_t>{8, 64}));
}

TEST(VllmDefaults, CaptureSizesOlderFamily) {
  // v0.10: [1, 2, 4] + range(8, min(2 x max_num_seqs, 512) + 1, 8): 67 sizes for 256.
  const std::vector<std::int64_t> s = cudagraph_capture_sizes(kV0_10_2, 256, 2048, 0, {}, 0);
  ASSERT_EQ(s.size(), 67u);
  EXPECT_EQ(s[3], 8);
  EXPECT_EQ(s.back(), 512);
  EXPECT_EQ(cudagraph_capture_sizes(kV0_10_2, 16, 2048, 0, {}, 0).back(), 32);
  // [1, 2, 4] are kept below the maximum; sizes above max_num_batched_tokens are dropped.
  EXPECT_EQ(cudagraph_capture_sizes(kV0_10_2, 1, 2048, 0, {}, 0),
            (std::vector<std::int64_t>{1, 2, 4}));
  EXPECT_EQ(cudagraph_capture_sizes(kV0_10_2, 256, 100, 0, {}, 0).back(), 96);
}

EngineFlags flags_with(std::int64_t max_num_seqs) {
  EngineFlags f;
  f.max_num_seqs = max_num_seqs;
  return f;
}

TEST(VllmDefaults, GraphsPerModeFromTheDispatcher) {
  const DeviceClass h200{mib(143156), "NVIDIA H200"};
  // max_num_seqs 256: 51 PIECEWISE graphs, FULL decode graphs for sizes 1..256: 35.
  const ResolvedArgs r = resolve_engine_args(flags_with(256), kV0_21, h200, 131072);
  EXPECT_EQ(r.cudagraph_mode, CudagraphMode::kFullAndPiecewise);
  EXPECT_EQ(r.piecewise_sizes.size(), 51u);
  EXPECT_EQ(r.full_sizes.size(), 35u);
  EXPECT_EQ(r.full_sizes.back(), 256);
  EXPECT_EQ(r.max_cudagraph_capture_size, 512);
  // v0.10.2: PIECEWISE only, 67 graphs; --enforce-eager: none.
  const ResolvedArgs old = resolve_engine_args(flags_with(256), kV0_10_2, h200, 131072);
  EXPECT_EQ(old.cudagraph_mode, CudagraphMode::kPiecewise);
  EXPECT_EQ(old.piecewise_sizes.size(), 67u);
  EXPECT_TRUE(old.full_sizes.empty());
  EngineFlags eager = flags_with(256);
  eager.enforce_eager = true;
  const ResolvedArgs none = resolve_engine_args(eager, kV0_21, h200, 131072);
  EXPECT_EQ(none.cudagraph_mode, CudagraphMode::kNone);
  EXPECT_TRUE(none.capture_sizes.empty());
  EXPECT_EQ(none.gpu_memory_utilization, 0.92);
  EXPECT_EQ(none.max_num_batched_tokens, 8192);
}

// -O<n> (PR #26847, v0.12.0): O0 captures nothing, O1 PIECEWISE graphs only (51 at 256
// sequences), O2 and O3 the default FULL_AND_PIECEWISE; an explicit cudagraph_mode or
// --enforce-eager wins. Before v0.12.0 the level was the compilation level: below 3 nothing is
// captured, 3 is the release's default.
TEST(VllmDefaults, OptimizationLevels) {
  const DeviceClass h200{mib(143156), "NVIDIA H200"};
  const auto mode_at = [&](const VersionRules& rules, int level) {
    EngineFlags f = flags_with(256);
    f.optimization_level = level;
    return resolve_engine_args(f, rules, h200, 131072);
  };
  EXPECT_EQ(mode_at(kV0_21, 0).cudagraph_mode, CudagraphMode::kNone);
  EXPECT_TRUE(mode_at(kV0_21, 0).capture_sizes.empty());
  const ResolvedArgs o1 = mode_at(kV0_21, 1);
  EXPECT_EQ(o1.cudagraph_mode, CudagraphMode::kPiecewise);
  EXPECT_EQ(o1.piecewise_sizes.size(), 51u);
  EXPECT_TRUE(o1.full_sizes.empty());
  EXPECT_EQ(mode_at(kV0_21, 2).cudagraph_mode, CudagraphMode::kFullAndPiecewise);
  EXPECT_EQ(mode_at(kV0_21, 3).full_sizes.size(), 35u);
  EXPECT_EQ(mode_at(kV0_10_2, 2).cudagraph_mode, CudagraphMode::kNone);
  EXPECT_EQ(mode_at(kV0_10_2, 3).cudagraph_mode, CudagraphMode::kPiecewise);
  const VersionRules v0_11 = rules_for({0, 11, 0, 0});
  EXPECT_EQ(mode_at(v0_11, 3).cudagraph_mode, CudagraphMode::kFullAndPiecewise);
  EngineFlags full = flags_with(256);
  full.optimization_level = 1;
  full.cudagraph_mode = CudagraphMode::kFull;
  EXPECT_EQ(resolve_engine_args(full, kV0_21, h200, 131072).cudagraph_mode, CudagraphMode::kFull);
  full.enforce_eager = true;
  EXPECT_EQ(resolve_engine_args(full, kV0_21, h200, 131072).cudagraph_mode, CudagraphMode::kNone);
  // A --compilation-config mode below VLLM_COMPILE (3) runs no piecewise graphs: the default
  // FULL_AND_PIECEWISE becomes NONE, while an explicit FULL stays.
  EngineFlags mode = flags_with(256);
  mode.compilation_mode = 0;
  EXPECT_EQ(resolve_engine_args(mode, kV0_21, h200, 131072).cudagraph_mode, CudagraphMode::kNone);
  mode.compilation_mode = 3;
  EXPECT_EQ(resolve_engine_args(mode, kV0_21, h200, 131072).cudagraph_mode,
            CudagraphMode::kFullAndPiecewise);
  mode.compilation_mode = 1;
  mode.cudagraph_mode = CudagraphMode::kFull;
  EXPECT_EQ(resolve_engine_args(mode, kV0_21, h200, 131072).cudagraph_mode, CudagraphMode::kFull);
}

TEST(VllmModelFacts, DerivedMaxModelLen) {
  const ModelCatalog& models = test_catalogs().models;
  Diagnostics diags;
  // llama3 RoPE keeps max_position_embeddings; DeepSeek-V3's yarn: 4096 x 40.
  auto len = [&](std::string_view slug) {
    return derived_max_model_len(models.find(slug, diags)->architecture);
  };
  EXPECT_EQ(len("llama-3.1-8b-instruct"), 131072);
  EXPECT_EQ(len("deepseek-v3"), 163840);
  EXPECT_EQ(len("qwen3-8b"), 40960);
  // Gemma 3's linear factor 8 is already in its 131,072 positions (config/model.py skips the
  // scaling for a gemma3 model_type).
  EXPECT_EQ(len("gemma-3-27b-it"), 131072);
}

// The length a run serves, as its ledger states it.
std::int64_t served_max_model_len(const Ledger& l) {
  for (const Fact& f : l.facts) {
    if (f.id == fact_id::kMaxModelLen) return std::get<std::int64_t>(f.value);
  }
  return -1;
}

// Phi-3.5-mini (longrope: max_position_embeddings 131,072, original 4,096): before PR #27431
// vLLM served the whole 131,072 by default; after it, the 4,096 the short factors cover, and a
// longer --max-model-len up to 131,072 is still accepted.
TEST(VllmModelFacts, LongRopeDefaultsToTheOriginalLengthFrom0111) {
  const std::string phi = "microsoft--Phi-3.5-mini-instruct";
  EXPECT_EQ(served_max_model_len(family_ledger("vllm", phi, 1, "", "h200", "0.11.0")), 131072);
  EXPECT_EQ(served_max_model_len(family_ledger("vllm", phi, 1, "", "h200", "0.11.1")), 4096);
  EXPECT_EQ(served_max_model_len(family_ledger("vllm", phi, 1, "    --max-model-len: 131072\n")),
            131072);
}

TEST(VllmAllReduce, SymmetricMemoryShrinksCustomAllReduce) {
  TpGroupFacts g;
  g.group_size = 8;
  g.fully_connected = true;
  g.compute_capability = 90;
  g.symm_mem_requested = true;
  AllReducePlan p = plan_all_reduce(g);
  EXPECT_TRUE(p.symm_mem.enabled);
  EXPECT_EQ(p.symm_mem.max_size, mib(64));
  EXPECT_TRUE(p.custom.enabled);
  EXPECT_EQ(p.custom.max_size, kib(256));  // min(256 KiB, 8 MiB) on Hopper at 8 GPUs
  g.group_size = 2;
  EXPECT_EQ(plan_all_reduce(g).custom.max_size, mib(8));  // min(64 MiB, 8 MiB)
  g.symm_mem_requested = false;                           // v0.10.2's default
  p = plan_all_reduce(g);
  EXPECT_FALSE(p.symm_mem.enabled);
  EXPECT_EQ(p.custom.max_size, mib(8));
  g.group_size = 4;
  g.fully_connected = false;
  p = plan_all_reduce(g);
  EXPECT_FALSE(p.custom.enabled);
  EXPECT_EQ(p.custom.reason,
            "Custom allreduce is disabled because it's not supported on more than two PCIe-only "
            "GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.");
  EXPECT_EQ(kSignalSize, bytes(2560));
}

// --attention-backend and VLLM_ATTENTION_BACKEND that name the backend vLLM chooses itself
// (platforms/cuda.py: FlashAttention on Hopper, FlashInfer on datacenter Blackwell, any case),
// or "auto", leave the start-up as modelled; another backend is refused with the one vLLM
// would take, an empty one quoted.
TEST(VllmDefaults, AnAttentionBackendIsTheOneVllmChoosesOrRefused) {
  const auto errors = [](const std::string& gpu, const std::string& args, const std::string& env) {
    return scenario_errors("hardware: {gpu: " + gpu +
                           ", count: 1}\nengine:\n  name: vllm\n  version: 0.21.0\n  args:\n" +
                           args + (env.empty() ? "" : "  env:\n" + env) + "model: qwen3-8b\n");
  };
  EXPECT_EQ(errors("h200", "    --attention-backend: FLASH_ATTN\n", ""), "");
  EXPECT_EQ(errors("h200", "    --attention-backend: flash_attn\n", ""), "");
  EXPECT_EQ(errors("h200", "    --attention-backend: Auto\n", ""), "");
  EXPECT_EQ(errors("h200", "    --attention-backend: ''\n", ""),
            "f.yaml:6:26: --attention-backend '' is not modelled: gpumem models the backend vLLM "
            "chooses itself for Qwen3ForCausalLM on this GPU, FLASH_ATTN; another has its own "
            "workspaces and KV-cache block constraints\n");
  EXPECT_EQ(
      errors("b200", "    --max-model-len: 8192\n", "    VLLM_ATTENTION_BACKEND: FLASHINFER\n"),
      "");
  EXPECT_EQ(errors("h200", "    --attention-backend: FLASHINFER\n", ""),
            "f.yaml:6:26: --attention-backend FLASHINFER is not modelled: gpumem models the "
            "backend vLLM chooses itself for Qwen3ForCausalLM on this GPU, FLASH_ATTN; another "
            "has its own workspaces and KV-cache block constraints\n");
  EXPECT_EQ(
      errors("b200", "    --max-model-len: 8192\n", "    VLLM_ATTENTION_BACKEND: TRITON_ATTN\n"),
      "f.yaml:8:29: VLLM_ATTENTION_BACKEND TRITON_ATTN is not modelled: gpumem models the "
      "backend vLLM chooses itself for Qwen3ForCausalLM on this GPU, FLASHINFER; another "
      "has its own workspaces and KV-cache block constraints\n");
}

}  // namespace
}  // namespace gpumem::vllm
