// The simulated vLLM start-up end to end. With the measured quantities pinned (weights,
// activation peak, non-torch increase, CUDA-graph estimate) the KV cache is sized exactly as
// vLLM sizes it; the expected numbers were computed independently with CPython from vLLM's
// expressions and the GPUs' CUDA totals (model/gpu): requested = ceil(total x util) (v0.14+)
// or total x util (older), available = int(requested - non_torch - peak - weights -
// estimate), num_blocks = available // page // layers_per_group.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "catalog/scenario.h"
#include "runtime/fact_ids.h"
#include "simulate/fit_advice.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const TestCatalogs& catalogs() { return test_catalogs(); }

std::optional<Ledger> try_simulate(const std::string& text, Diagnostics& diags) {
  std::optional<Scenario> s = parse_scenario("vllm.yaml", text, catalogs().gpus, diags);
  if (!s || !diags.empty()) return std::nullopt;
  return simulate_scenario(*s, SimulationInputs{catalogs().gpus, catalogs().models, {}}, diags);
}

Ledger simulate(const std::string& text) {
  Diagnostics diags;
  std::optional<Ledger> l = try_simulate(text, diags);
  EXPECT_TRUE(l && diags.empty()) << diags.to_string();
  return l ? *l : Ledger{};
}

std::string scenario(const std::string& gpu, int count, const std::string& version,
                     const std::string& model, const std::string& args,
                     const std::string& observed = "", const std::string& env = "") {
  std::string s = "hardware: {gpu: " + gpu + ", count: " + std::to_string(count) +
                  "}\nengine:\n  name: vllm\n  version: " + version + "\n  args:\n" + args;
  if (!env.empty()) s += "  env:\n" + env;
  s += "model: " + model + "\n";
  if (!observed.empty()) s += "observed:\n" + observed;
  return s;
}

std::int64_t fact(const Ledger& l, std::string_view key, size_t gpu = 0) {
  const Fact* f = l.gpus.at(gpu).fact(key);
  EXPECT_NE(f, nullptr) << key;
  return f == nullptr ? -1 : std::get<std::int64_t>(f->value);
}

std::int64_t size_fact(const Ledger& l, std::string_view key, size_t gpu = 0) {
  const Fact* f = l.gpus.at(gpu).fact(key);
  EXPECT_NE(f, nullptr) << key;
  return f == nullptr ? -1 : std::get<Bytes>(f->value).value();
}

bool logged(const Ledger& l, std::string_view line) {
  for (const LedgerStep& s : l.gpus.front().steps) {
    if (std::find(s.log_lines.begin(), s.log_lines.end(), line) != s.log_lines.end()) return true;
  }
  return false;
}

std::vector<std::string> steps(const Ledger& l) {
  std::vector<std::string> out;
  for (const LedgerStep& s : l.gpus.front().steps) out.push_back(s.name);
  return out;
}

// Llama-3.1-8B on one H200 (CUDA total 143,156 MiB), v0.21: requested ceil(150,109,945,856 x
// 0.92) = 138,101,150,188; available 120,310,567,076; 57,368 blocks of 32 x 64 KiB.
TEST(VllmPinned, DenseTp1WithTheGraphEstimate) {
  const Ledger l = simulate(scenario("h200", 1, "0.21.0", "llama-3.1-8b-instruct",
                                     "    --tensor-parallel-size: 1\n",
                                     "  model_loading: 16094076928B\n"
                                     "  activation_peak: 1352908800B\n"
                                     "  non_torch_memory: 75161928B\n"
                                     "  cuda_graph_estimate: 268435456B\n"));
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(fact(l, "kv_blocks"), 57368);
  EXPECT_EQ(fact(l, "kv_tokens"), 917888);
  EXPECT_TRUE(logged(l, "Model loading took 14.99 GiB memory"));
  EXPECT_TRUE(logged(l, "Available KV cache memory: 112.05 GiB"));
  EXPECT_TRUE(logged(l, "GPU KV cache size: 917,888 tokens"));
  EXPECT_TRUE(logged(l, "Maximum concurrency for 131,072 tokens per request: 7.00x"));
  // 32 KV tensors of 57,368 x 65,536 = 3,759,669,248 B, each its own segment rounded to
  // 2 MiB (3,760,193,536 B); PyTorch does not split off a remainder of 1 MiB or less, so the
  // allocated blocks are whole segments.
  const LedgerStep& kv = l.gpus.front().steps[7];
  ASSERT_EQ(kv.name, "kv_cache");
  EXPECT_EQ(kv.allocated_delta.value(), 32LL * 3'760'193'536);
}

// Llama-3.1-70B, TP 4 on H100 SXM (CUDA total 81,090 MiB), v0.10.2: requested = total x 0.9
// as a float; each rank keeps 2 of the 8 KV heads: 16 x 2 x 256 x 2 = 16 KiB pages, 80
// layers. available 38,812,125,056 -> 29,611 blocks, 473,776 tokens (v0.10 formula).
TEST(VllmPinned, GqaTp4OlderFamily) {
  const Ledger l = simulate(scenario("h100", 4, "0.10.2", "llama-3.1-70b-instruct",
                                     "    --tensor-parallel-size: 4\n"
                                     "    --max-model-len: 32768\n",
                                     "  model_loading: 35314000000B\n"
                                     "  activation_peak: 1500000000B\n"
                                     "  non_torch_memory: 900000000B\n"));
  ASSERT_TRUE(l.fits());
  for (size_t gpu = 0; gpu < 4; ++gpu) {
    EXPECT_EQ(fact(l, "kv_blocks", gpu), 29611);
  }
  EXPECT_EQ(fact(l, "kv_tokens"), 473776);
  EXPECT_TRUE(logged(l, "Available KV cache memory: 36.15 GiB"));
  EXPECT_TRUE(logged(l, "Maximum concurrency for 32,768 tokens per request: 14.46x"));
}

// DeepSeek-V3, TP 8 on H200, v0.21: MLA pages of FlashMLA's 64-token blocks, 64 x 576 x 2 =
// 73,728 B, 61 layers; available 50,811,150,188 -> 11,297 blocks, 723,008 tokens.
TEST(VllmPinned, MlaTp8) {
  const Ledger l =
      simulate(scenario("h200", 8, "0.21.0", "deepseek-v3", "    --tensor-parallel-size: 8\n",
                        "  model_loading: 85000000000B\n"
                        "  activation_peak: 1500000000B\n"
                        "  non_torch_memory: 90000000B\n"
                        "  cuda_graph_estimate: 700000000B\n"));
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(size_fact(l, "kv_page_bytes"), 73728);
  EXPECT_EQ(fact(l, "kv_blocks"), 11297);
  EXPECT_EQ(fact(l, "kv_tokens"), 723008);
  EXPECT_TRUE(logged(l, "Available KV cache memory: 47.32 GiB"));
  EXPECT_TRUE(logged(l, "Maximum concurrency for 163,840 tokens per request: 4.41x"));
}

// gpt-oss-20b on H200, v0.21: 12 sliding-window and 12 full layers, two groups of 12 with
// 32 KiB pages; available 121,201,150,188 -> 308,230 blocks. One request of 131,072 tokens
// takes 8,192 + 521 blocks: concurrency 35.38, int(35.376 x 131,072) = 4,636,786 tokens.
TEST(VllmPinned, HybridSlidingWindow) {
  const Ledger l =
      simulate(scenario("h200", 1, "0.21.0", "gpt-oss-20b", "    --tensor-parallel-size: 1\n",
                        "  model_loading: 14500000000B\n"
                        "  activation_peak: 2000000000B\n"
                        "  non_torch_memory: 100000000B\n"
                        "  cuda_graph_estimate: 300000000B\n"));
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(fact(l, "kv_layers_per_group"), 12);
  EXPECT_EQ(fact(l, "kv_blocks"), 308230);
  EXPECT_EQ(fact(l, "kv_tokens"), 4636786);
  EXPECT_TRUE(logged(l, "Maximum concurrency for 131,072 tokens per request: 35.38x"));
}

// dev.yaml case 28 (vLLM 0.10.2, a Mistral-7B language model, max_model_len 4096) with its
// own suggestion pinned: "--kv-cache-memory=59212694937" sizes the KV cache as that run's
// profile did: 28,234 blocks, "GPU KV cache size: 451,744 tokens", 110.29x.
TEST(VllmPinned, KvCacheMemoryOverrideReproducesCase28) {
  const Ledger l = simulate(scenario("h100", 1, "0.10.2", "mistral-7b-instruct-v0.3",
                                     "    --max-model-len: 4096\n"
                                     "    --kv-cache-memory: 59212694937\n"));
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(fact(l, "kv_blocks"), 28234);
  EXPECT_TRUE(logged(l, "GPU KV cache size: 451,744 tokens"));
  EXPECT_TRUE(logged(l, "Maximum concurrency for 4,096 tokens per request: 110.29x"));
  // No profiling result is used: no "Available KV cache memory" line, no suggestion.
  for (const LedgerStep& s : l.gpus.front().steps) {
    for (const std::string& line : s.log_lines) {
      EXPECT_EQ(line.find("Available KV cache memory"), std::string::npos);
      EXPECT_EQ(line.find("Replace gpu_memory_utilization"), std::string::npos);
    }
  }
}

// The same start-up with the KV memory pinned (observed) instead of given as a flag: the
// profile still runs and prints its lines, and the budget's result is the pinned bytes:
// 59,212,694,937 // 2,097,152 = 28,234 blocks = 451,744 tokens.
TEST(VllmPinned, ObservedKvCacheMemoryReplacesTheBudgetsResult) {
  const Ledger l =
      simulate(scenario("h100", 1, "0.10.2", "mistral-7b-instruct-v0.3",
                        "    --max-model-len: 4096\n", "  kv_cache_memory: 59212694937B\n"));
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(size_fact(l, "kv_bytes"), 59212694937);
  EXPECT_EQ(fact(l, "kv_blocks"), 28234);
  EXPECT_TRUE(logged(l, "GPU KV cache size: 451,744 tokens"));
  EXPECT_TRUE(logged(l, "Available KV cache memory: 55.15 GiB"));
}

// A quantized checkpoint replayed through its base model's shape (Qwen2.5-72B, a 4-bit
// checkpoint logging "Model loading took 38.0 GiB") on one L40S (CUDA total 45,589 MiB),
// v0.10.2: the weights step holds the pinned 40,802,189,312 B (one 2 MiB-aligned tensor),
// not the base model's 145 GB of bf16 tensors. requested 43,023,178,137.6; available
// int(requested - 38 GiB - 1 GiB - 0.25 GiB) = 878,811,545 -> 167 blocks of 80 x 64 KiB;
// one request of 2,048 tokens takes 128 of them.
TEST(VllmPinned, ModelLoadingSizesTheWeightsStep) {
  const Ledger l =
      simulate(scenario("l40s", 1, "0.10.2", "qwen2.5-72b-instruct", "    --max-model-len: 2048\n",
                        "  model_loading: 38GiB\n"
                        "  activation_peak: 1GiB\n"
                        "  non_torch_memory: 0.25GiB\n"));
  ASSERT_TRUE(l.fits());
  const LedgerStep& weights = l.gpus.front().steps[4];
  ASSERT_EQ(weights.name, "weights");
  EXPECT_EQ(weights.allocated_delta.value(), 40'802'189'312);
  EXPECT_EQ(weights.reserved_delta.value(), 40'802'189'312);
  EXPECT_EQ(size_fact(l, "weights_bytes"), 40'802'189'312);
  EXPECT_EQ(size_fact(l, "kv_bytes"), 878'811'545);
  EXPECT_EQ(fact(l, "kv_blocks"), 167);
  EXPECT_TRUE(logged(l, "Model loading took 38.0000 GiB"));
  EXPECT_TRUE(logged(l, "Available KV cache memory: 0.82 GiB"));
  EXPECT_TRUE(logged(l, "GPU KV cache size: 2,672 tokens"));
  EXPECT_TRUE(logged(l, "Maximum concurrency for 2,048 tokens per request: 1.30x"));
}

// Without the pin the same start-up allocates the base model's bf16 weights and stops there.
TEST(VllmPinned, BaseModelWeightsDoNotFitWithoutThePin) {
  const Ledger l = simulate(
      scenario("l40s", 1, "0.10.2", "qwen2.5-72b-instruct", "    --max-model-len: 2048\n"));
  ASSERT_FALSE(l.fits());
  EXPECT_EQ(l.gpus.front().failed_step()->name, "weights");
}

TEST(VllmPinned, OverrideOfTheBlockCount) {
  const Ledger l = simulate(scenario("h200", 1, "0.21.0", "llama-3.1-8b-instruct",
                                     "    --num-gpu-blocks-override: 1000\n"
                                     "    --enforce-eager: true\n",
                                     "  model_loading: 16094076928B\n"
                                     "  activation_peak: 1352908800B\n"
                                     "  non_torch_memory: 75161928B\n"));
  // Without the estimate: 138,101,150,188 - 17,522,147,656 = 120,579,002,532 B -> 57,496.
  EXPECT_TRUE(logged(l, "Overriding num_gpu_blocks=57496 with num_gpu_blocks_override=1000"));
  EXPECT_EQ(fact(l, "kv_blocks"), 1000);
  EXPECT_TRUE(logged(l, "GPU KV cache size: 16,000 tokens"));
}

TEST(VllmStartup, StepOrderByFamily) {
  const std::string model = "llama-3.1-8b-instruct";
  EXPECT_EQ(
      steps(simulate(scenario("h200", 1, "0.10.2", model, "    --tensor-parallel-size: 1\n"))),
      (std::vector<std::string>{"context", "memory_snapshot", "distributed", "model_runner",
                                "weights", "profile_run", "kv_cache", "cuda_graphs",
                                "sampler_warmup"}));
  EXPECT_EQ(
      steps(simulate(scenario("h200", 1, "0.21.0", model, "    --tensor-parallel-size: 1\n"))),
      (std::vector<std::string>{"context", "distributed", "memory_snapshot", "model_runner",
                                "weights", "profile_run", "cuda_graph_estimate", "kv_cache",
                                "cuda_graphs", "sampler_warmup"}));
  EXPECT_EQ(steps(simulate(scenario("h200", 1, "0.21.0", model, "    --enforce-eager: true\n"))),
            (std::vector<std::string>{"context", "distributed", "memory_snapshot", "model_runner",
                                      "weights", "profile_run", "kv_cache", "sampler_warmup"}));
  // From v0.17.0 the estimate runs whenever graphs are captured; whether the KV budget pays
  // for it is VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS (opt-in before v0.21.0, opt-out after).
  const auto run = [&](const std::string& version, const std::string& env) {
    return simulate(scenario("h200", 1, version, model, "    --max-model-len: 8192\n", "", env));
  };
  const Ledger uncharged = run("0.20.0", "");
  const Ledger charged = run("0.20.0", "    VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS: \"1\"\n");
  const Ledger opted_out = run("0.21.0", "    VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS: \"0\"\n");
  for (const Ledger* l : {&uncharged, &charged, &opted_out}) {
    EXPECT_EQ(steps(*l)[6], "cuda_graph_estimate");
  }
  const std::int64_t estimate = size_fact(charged, "cuda_graph_estimate_bytes");
  EXPECT_EQ(estimate, size_fact(uncharged, "cuda_graph_estimate_bytes"));
  EXPECT_GT(estimate, 0);
  // available = int(requested - non-KV - estimate): the same profile, the estimate left out.
  EXPECT_NEAR(size_fact(uncharged, fact_id::kKvBytes),
              size_fact(charged, fact_id::kKvBytes) + estimate, 1);
  const auto hint = [](const Ledger& l) {
    for (const LedgerStep& s : l.gpus.front().steps) {
      for (const std::string& line : s.log_lines) {
        if (line.starts_with("In v0.19, CUDA graph memory profiling will be enabled")) return line;
      }
    }
    return std::string();
  };
  // gpu_worker.py: round(0.9 + estimate / total, 4), as the 0.18 logs print it.
  const double suggested =
      std::round((0.9 + static_cast<double>(estimate) / 150'109'945'856.0) * 1e4) / 1e4;
  EXPECT_EQ(hint(uncharged),
            "In v0.19, CUDA graph memory profiling will be enabled by default "
            "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1), which more accurately accounts for "
            "CUDA graph memory during KV cache allocation. To try it now, set "
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 and increase --gpu-memory-utilization "
            "from 0.9000 to " +
                fmt::format("{:.4f}", suggested) +
                " to maintain the same effective KV cache size.");
  EXPECT_EQ(hint(charged), "");
  EXPECT_EQ(std::get<std::string>(uncharged.fact("cuda_graph_estimate_enabled")->value),
            "measured, not charged");
}

TEST(VllmStartup, NcclCumemEnableByVersion) {
  auto cumem = [](const std::string& version, const std::string& env) {
    const Ledger l = simulate(scenario("h200", 2, version, "llama-3.1-8b-instruct",
                                       "    --tensor-parallel-size: 2\n", "", env));
    return std::get<std::string>(l.fact("nccl_cumem_enable")->value);
  };
  EXPECT_EQ(cumem("0.10.1", ""), "0");  // vllm env_override.py before PR #24141
  EXPECT_EQ(cumem("0.10.1", "    NCCL_CUMEM_ENABLE: \"1\"\n"), "1");
  EXPECT_EQ(cumem("0.10.2", ""), "NCCL's default");
}

// Pipeline stages hold different weights (embedding first, lm_head last), so their block
// counts differ; every rank keeps the MIN (kv_cache_utils.py get_kv_cache_configs).
TEST(VllmStartup, BlocksAreTheMinimumOverRanks) {
  const Ledger l = simulate(
      scenario("h200", 2, "0.21.0", "llama-3.1-8b-instruct", "    --pipeline-parallel-size: 2\n"));
  ASSERT_TRUE(l.fits());
  const std::int64_t r0 = fact(l, "kv_blocks_rank", 0);
  const std::int64_t r1 = fact(l, "kv_blocks_rank", 1);
  EXPECT_NE(r0, r1);
  EXPECT_EQ(fact(l, "kv_blocks", 0), std::min(r0, r1));
  EXPECT_EQ(fact(l, "kv_blocks", 1), std::min(r0, r1));
}

TEST(VllmStartup, BudgetCheckStopsAtTheSnapshot) {
  const Ledger l = simulate(
      "hardware: {gpu: h200, count: 1, preoccupied: {0: 20GiB}}\n"
      "engine: {name: vllm, version: 0.21.0}\nmodel: llama-3.1-8b-instruct\n");
  ASSERT_FALSE(l.fits());
  const LedgerStep* failed = l.gpus.front().failed_step();
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->name, "memory_snapshot");
  EXPECT_EQ(failed->outcome, StepOutcome::kError);
  EXPECT_EQ(failed->message.rfind("ValueError: Free memory on device cuda:0 (", 0), 0u)
      << failed->message;
  EXPECT_NE(failed->message.find("GiB) on startup is less than desired GPU memory utilization "
                                 "(0.92, 128.62 GiB)."),
            std::string::npos)
      << failed->message;
}

TEST(VllmStartup, CaptureSizesAndGraphs) {
  const Ledger l =
      simulate(scenario("h200", 1, "0.21.0", "llama-3.1-8b-instruct", "    --max-num-seqs: 256\n"));
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(l.fact("cuda_graph_capture_sizes")->value).size(),
            51u);
  EXPECT_EQ(std::get<std::string>(l.fact("cuda_graphs_captured")->value), "51, 35");
  EXPECT_TRUE(logged(l, "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 51/51"));
  EXPECT_TRUE(logged(l, "Capturing CUDA graphs (decode, FULL): 35/35"));
}

// 20 GiB held on the GPU: free memory at the snapshot is 150,109,945,856 - 21,474,836,480 -
// the context (2,048 B x 132 SMs x 2,048 threads = 553,648,128 B) = 128,081,461,248 B, so the
// budget check passes only for ceil(total x util) <= free, util <= 0.8532. The nearest
// fitting value is 0.85; the graph-size knob is vLLM's own.
TEST(VllmFitAdvice, AdvisesTheUtilization) {
  const std::string text =
      "hardware: {gpu: h200, count: 1, preoccupied: {0: 20GiB}}\n"
      "engine: {name: vllm, version: 0.21.0}\nmodel: llama-3.1-8b-instruct\n";
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("vllm.yaml", text, catalogs().gpus, diags);
  ASSERT_TRUE(s) << diags.to_string();
  const SimulationInputs inputs{catalogs().gpus, catalogs().models, {}};
  const Ledger l = *simulate_scenario(*s, inputs, diags);
  const FitAdviceRecord advice = find_fit(*s, inputs, l);
  EXPECT_EQ(advice.options,
            (std::vector<FitOption>{{"--gpu-memory-utilization", "0.85", "0.920"}}));
  // A budget above free memory: no graph size, length, batch, eager mode or KV dtype
  // changes that.
  EXPECT_EQ(advice.none_found,
            (std::vector<std::string>{"--max-cudagraph-capture-size", "--max-model-len",
                                      "--max-num-seqs", "--max-num-batched-tokens",
                                      "--enforce-eager", "--kv-cache-dtype"}));
  EXPECT_EQ(advise_fit(advice, *s),
            "\nwhat would make it start (each alone, simulated):\n"
            "  --gpu-memory-utilization 0.85 (instead of 0.920)\n"
            "  no smaller --max-cudagraph-capture-size\n"
            "  no smaller --max-model-len\n"
            "  no smaller --max-num-seqs\n"
            "  no smaller --max-num-batched-tokens\n"
            "  not --enforce-eager either\n"
            "  not --kv-cache-dtype fp8 either\n");
}

std::string first_error(const std::string& text) {
  Diagnostics diags;
  (void)try_simulate(text, diags);
  return diags.empty() ? "" : diags.errors().front().to_string();
}

TEST(VllmErrors, FlagsVersionsAndObservedKeys) {
  EXPECT_EQ(
      first_error(scenario("h200", 1, "0.21.0", "qwen3-8b", "    --max-model-length: 4096\n")),
      "vllm.yaml:6:5: unknown vLLM flag '--max-model-length'; did you mean '--max-model-len'?");
  EXPECT_EQ(first_error(scenario("h200", 1, "0.9.2", "qwen3-8b", "    --max-model-len: 4096\n")),
            "vllm.yaml:4:12: vLLM version '0.9.2' is not modelled; gpumem models 0.10.1 to 0.30.x");
  EXPECT_EQ(first_error(scenario("h200", 1, "0.10.1", "qwen3-8b", "    --kv-cache-memory: 1000\n")),
            "vllm.yaml:6:24: --kv-cache-memory needs vLLM 0.10.2 or newer");
  EXPECT_EQ(first_error(scenario("h200", 3, "0.21.0", "qwen3-8b", "    -tp: 3\n")),
            "vllm.yaml:6:10: ValueError: Total number of attention heads (32) must be divisible by "
            "tensor parallel size (3).");
  EXPECT_EQ(first_error(scenario("h200", 1, "0.21.0", "qwen3-8b", "    --max_model_len: 4096\n",
                                 "  free_before_weights: 100GiB\n")),
            "vllm.yaml:9:24: 'free_before_weights' is measured by SGLang; this scenario runs vllm");
  EXPECT_EQ(first_error(scenario("h200", 1, "0.16.0", "qwen3-8b", "    --max-model-len: 4096\n",
                                 "  cuda_graph_estimate: 1GiB\n")),
            "vllm.yaml:9:3: 'cuda_graph_estimate' is pinned but this launch makes no CUDA-graph "
            "estimate (vLLM 0.17.0 or newer, with CUDA graphs and without --kv-cache-memory; Model "
            "Runner V2 from 0.29.0)");
  EXPECT_EQ(
      first_error(scenario("h100", 1, "0.10.2", "qwen3-8b", "    --kv-cache-memory: 1000000000\n",
                           "  kv_cache_memory: 1GiB\n")),
      "vllm.yaml:9:3: 'kv_cache_memory' is pinned and --kv-cache-memory is given: give one "
      "of them");
}

}  // namespace
}  // namespace gpumem
