// With F and A pinned (the free memory a real run measured before and after loading the
// weights), the simulated SGLang start-up sizes the KV cache exactly as SGLang does. The
// expected token counts were computed independently with CPython, using SGLang v0.5.9's
// expressions: int((A/2**30 - F/2**30 * (1 - mfs)) * (1 << 30)) // cell_size.
#include <gtest/gtest.h>

#include "catalog/scenario.h"
#include "engine/validate.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const TestCatalogs& catalogs() { return test_catalogs(); }

Ledger simulate(const std::string& text) {
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("pinned.yaml", text, catalogs().gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string();
  std::optional<Ledger> l =
      simulate_scenario(*s, SimulationInputs{catalogs().gpus, catalogs().models, {}}, diags);
  EXPECT_TRUE(l && diags.empty()) << diags.to_string();
  return *l;
}

std::int64_t fact(const Ledger& l, std::string_view key) {
  const Fact* f = l.gpus.front().fact(key);
  EXPECT_NE(f, nullptr) << key;
  return f == nullptr ? -1 : std::get<std::int64_t>(f->value);
}

// The first line of GPU 0's start-up that begins with `prefix`, or "".
std::string line_starting(const Ledger& l, std::string_view prefix) {
  for (const LedgerStep& s : l.gpus.front().steps) {
    for (const std::string& line : s.log_lines) {
      if (line.starts_with(prefix)) return line;
    }
  }
  return "";
}

// One GPU with F and A pinned, at `version`.
std::string at_release(const std::string& version, const std::string& gpu, const std::string& model,
                       const std::string& args, const std::string& f, const std::string& a) {
  return "hardware: {gpu: " + gpu + ", count: 1}\nengine:\n  name: sglang\n  version: " + version +
         "\n  args:\n" + args + "model: " + model + "\nobserved:\n  free_before_weights: " + f +
         "\n  free_after_weights: " + a + "\n";
}

std::string scenario(const std::string& gpu, int count, int nodes, const std::string& model, int tp,
                     const std::string& mfs, const std::string& f, const std::string& a,
                     const std::string& extra_args = "") {
  return "hardware: {gpu: " + gpu + ", count: " + std::to_string(count) +
         ", nodes: " + std::to_string(nodes) +
         "}\nengine:\n  name: sglang\n  version: 0.5.9\n"
         "  args:\n    --tp-size: " +
         std::to_string(tp) + "\n    --mem-fraction-static: " + mfs + "\n" + extra_args +
         "model: " + model + "\nobserved:\n  free_before_weights: " + f +
         "\n  free_after_weights: " + a + "\n";
}

TEST(SglangPinned, MhaLlama8b) {
  const Ledger l =
      simulate(scenario("h200", 1, 1, "llama-3.1-8b-instruct", 1, "0.85", "140GiB", "120GiB"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 131072);  // 8 x (128 + 128) x 32 x 2
  EXPECT_EQ(fact(l, "kv_tokens"), 811008);
}

TEST(SglangPinned, GqaWithReplicatedKvHeads) {
  // TP 16 over 8 KV heads: each rank keeps max(1, 8 // 16) = 1 head.
  const Ledger l =
      simulate(scenario("h100", 8, 2, "llama-3.1-70b-instruct", 16, "0.88", "76GiB", "66GiB"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 40960);
  EXPECT_EQ(fact(l, "kv_tokens"), 1491075);
}

TEST(SglangPinned, MlaDeepseekV3) {
  const Ledger l = simulate(scenario("h200", 8, 1, "deepseek-v3", 8, "0.88", "130GiB", "45GiB"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 70272);  // (512 + 64) x 61 x 2
  EXPECT_EQ(fact(l, "kv_tokens"), 449226);
}

TEST(SglangPinned, HybridSlidingWindowGptOss) {
  const Ledger l = simulate(scenario("h200", 1, 1, "gpt-oss-20b", 1, "0.8", "140GiB", "126GiB"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 49152);
  // profile 2,140,842 tokens; full = int(T x 49152 / (24576 + 0.8 x 24576)); swa = int(0.8 full)
  EXPECT_EQ(fact(l, "profiled_tokens"), 2140842);
  EXPECT_EQ(fact(l, "kv_tokens"), 2378713);
  EXPECT_EQ(fact(l, "swa_kv_tokens"), 1902970);
}

TEST(SglangPinned, Fp8KvCache) {
  const Ledger l = simulate(scenario("h200", 1, 1, "qwen2.5-7b-instruct", 1, "0.7", "140GiB",
                                     "125GiB", "    --kv-cache-dtype: fp8_e4m3\n"));
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 28672);  // 4 x (128 + 128) x 28 x 1
  EXPECT_EQ(fact(l, "kv_tokens"), 3108278);
}

TEST(SglangPinned, WorkedExampleScenarioPinsFAndSubtractsTheSimulatedWeights) {
  // scenarios/h20x8-llama-3.1-70b-worked-example.yaml pins F = 93.00 GiB only: A is F minus
  // what the simulated weights took (17,640,734,720 B of parameters, 64 MiB RoPE cache and the
  // allocator's rounding), and mfs 0.55 gives cell 40,960 B.
  Diagnostics diags;
  std::optional<Scenario> s =
      load_scenario(GPUMEM_SOURCE_DIR "/scenarios/h20x8-llama-3.1-70b-worked-example.yaml",
                    catalogs().gpus, diags);
  ASSERT_TRUE(s) << diags.to_string();
  std::optional<Ledger> l =
      simulate_scenario(*s, SimulationInputs{catalogs().gpus, catalogs().models, {}}, diags);
  ASSERT_TRUE(l) << diags.to_string();
  EXPECT_EQ(fact(*l, "kv_cell_bytes"), 40960);
  EXPECT_EQ(std::get<Bytes>(l->gpus.front().fact("weights_logical_bytes")->value).value(),
            17'640'734'720 + 67'108'864);
  EXPECT_EQ(fact(*l, "req_to_token_rows"), 3548);
  EXPECT_EQ(fact(*l, "max_running_requests"), 3548);
}

// A 4-bit checkpoint replayed through its base model's shape (Qwen2.5-72B) on one H100 with
// "Load weight end ... mem usage=38.00 GB" pinned: the weights step holds the pinned
// 40,802,189,312 B, not the base model's 145 GB of bf16 tensors, and A = F - 38 GiB.
// rest = 40 - 78 x (1 - 0.9) = 32.2 GiB; cell 8 x (128 + 128) x 80 x 2 = 327,680 B.
TEST(SglangPinned, WeightLoadUsageSizesTheWeightsStep) {
  const Ledger l = simulate(
      "hardware: {gpu: h100, count: 1}\n"
      "engine:\n  name: sglang\n  version: 0.5.9\n  args:\n    --mem-fraction-static: 0.9\n"
      "model: qwen2.5-72b-instruct\n"
      "observed:\n  free_before_weights: 78GiB\n  weight_load_usage: 38GiB\n");
  ASSERT_TRUE(l.fits());
  const LedgerStep& weights = l.gpus.front().steps[3];
  ASSERT_EQ(weights.name, "weights");
  EXPECT_EQ(weights.allocated_delta.value(), 40'802'189'312);
  EXPECT_EQ(fact(l, "kv_cell_bytes"), 327680);
  EXPECT_EQ(fact(l, "kv_tokens"), 105512);
}

// The v0.4.6 log of sglang issue #6291 (Qwen3-8B on an 80 GB card, F 78.84 and A 63.49 GiB
// logged) at --mem-fraction-static 0.9: rest = 63.49 - 78.84 x 0.1 = 55.606 GiB, cell 147,456
// -> 404,910 tokens (the log: 404,890, its F and A rounded to 0.01 GiB). The request pool has
// min(max(int(404910 / 8096 x 512), 2048), 4096) + 1 = 4097 rows and max_running_requests is
// 4097, as logged; the summary has no available_gpu_mem yet.
// FlashInfer's workspace is 512 MiB for Qwen2ForCausalLM and Qwen3ForCausalLM, and the
// default 384 MiB for every other architecture, Qwen3MoeForCausalLM included (sglang v0.5.9
// flashinfer_backend.py). The attention_backend step also holds the int workspaces and the
// index pointers, the same for both models on one H200: the difference is the 128 MiB.
TEST(SglangPinned, FlashInferWorkspaceOfQwenDenseOnly) {
  const auto attention_bytes = [](const std::string& model) {
    const Ledger l = simulate(scenario("h200", 1, 1, model, 1, "0.85", "140GiB", "100GiB",
                                       "    --attention-backend: flashinfer\n"
                                       "    --max-running-requests: 256\n"));
    for (const LedgerStep& s : l.gpus.front().steps) {
      if (s.name == "attention_backend") return s.allocated_delta.value();
    }
    ADD_FAILURE() << "no attention_backend step";
    return std::int64_t{0};
  };
  EXPECT_EQ(attention_bytes("qwen3-8b") - attention_bytes("qwen3-30b-a3b"), 128LL << 20);
}

TEST(SglangReleases, V046RequestPoolHasOneRowMore) {
  const Ledger l = simulate(at_release("0.4.6.post4", "h100", "qwen3-8b",
                                       "    --mem-fraction-static: 0.9\n"
                                       "    --context-length: 8096\n",
                                       "78.84GiB", "63.49GiB"));
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(fact(l, "kv_tokens"), 404910);
  EXPECT_EQ(fact(l, "req_to_token_rows"), 4097);
  EXPECT_EQ(fact(l, "max_running_requests"), 4097);
  EXPECT_EQ(line_starting(l, "max_total_num_tokens="),
            "max_total_num_tokens=404910, chunked_prefill_size=8192, max_prefill_tokens=16384, "
            "max_running_requests=4097, context_len=8096");
  // 23 sizes up to 160, as logged.
  const Fact* bs = l.gpus.front().fact("cuda_graph_batch_sizes");
  ASSERT_NE(bs, nullptr);
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(bs->value).size(), 23u);
}

// v0.5.3–v0.5.6: an EAGLE target's pool grows by max_num_reqs x (steps x topk + draft tokens)
// + 100: 48 x (5 x 4 + 8) + 100 = 1444 tokens above the 811,008 of v0.5.9.
TEST(SglangReleases, EagleHeadroomUntilV057) {
  const std::string args =
      "    --mem-fraction-static: 0.85\n"
      "    --speculative-algorithm: EAGLE3\n"
      "    --speculative-draft-model-path: eagle3-llama3.1-instruct-8b\n";
  const Ledger v056 =
      simulate(at_release("0.5.6", "h200", "llama-3.1-8b-instruct", args, "140GiB", "120GiB"));
  const Ledger v057 =
      simulate(at_release("0.5.7", "h200", "llama-3.1-8b-instruct", args, "140GiB", "120GiB"));
  EXPECT_EQ(fact(v057, "kv_tokens"), 811008);
  EXPECT_EQ(fact(v056, "kv_tokens"), 811008 + 1444);
}

// Log wording by release (sglang.md §9): the per-kind graph lines from v0.5.12, their token
// field renamed in v0.5.17, "dtype:" in the KV line after v0.5.9, no dtype in "Load weight
// end" from v0.5.17. Llama-3.1-8B on one H200, 811,008 tokens, K = V = 811,009 x 65,536 B.
TEST(SglangReleases, LogWordingByRelease) {
  auto run = [](const std::string& version) {
    return simulate(at_release(version, "h200", "llama-3.1-8b-instruct",
                               "    --mem-fraction-static: 0.85\n"
                               "    --cuda-graph-max-bs: 8\n",
                               "140GiB", "120GiB"));
  };
  const Ledger v0511 = run("0.5.11");
  EXPECT_EQ(line_starting(v0511, "KV Cache"),
            "KV Cache is allocated. dtype: torch.bfloat16, #tokens: 811008, K size: 49.50 GB, "
            "V size: 49.50 GB");
  EXPECT_NE(line_starting(v0511,
                          "Capture cuda graph begin. This can take up to several "
                          "minutes. avail mem="),
            "");
  EXPECT_NE(line_starting(v0511, "Capture cuda graph end. mem usage="), "");
  const Ledger v0516 = run("0.5.16");
  EXPECT_NE(line_starting(v0516,
                          "Capture target decode CUDA graph begin. backend=full, "
                          "num_tokens_per_bs=1, bs=[1, 2, 4, 8], avail mem="),
            "");
  EXPECT_NE(line_starting(v0516,
                          "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                          "avail mem="),
            "");
  const Ledger v0517 = run("0.5.17");
  EXPECT_NE(line_starting(v0517,
                          "Capture target decode CUDA graph begin. backend=full, "
                          "num_tokens_per_req=1, bs=[1, 2, 4, 8], avail mem="),
            "");
  EXPECT_NE(line_starting(v0517, "Capture target decode CUDA graph end. mem usage="), "");
  EXPECT_NE(line_starting(v0517, "Load weight end. type=LlamaForCausalLM, avail mem="), "");
  const Ledger v059 = run("0.5.9");
  EXPECT_EQ(line_starting(v059, "KV Cache"),
            "KV Cache is allocated. #tokens: 811008, K size: 49.50 GB, V size: 49.50 GB");
}

// v0.4.6.post5 on H200s: PR #5893's fraction (18 GiB left of nvidia-smi's 143,771 MiB) and the
// capture list to 256 (server_defaults_test.cc derives both).
TEST(SglangDefaults, LargeGpuDefaultsOfV046Post5Simulate) {
  Diagnostics diags;
  std::optional<Scenario> s =
      parse_scenario("old.yaml",
                     "hardware: {gpu: h200, count: 8}\n"
                     "engine:\n  name: sglang\n  version: 0.4.6.post5\n  args:\n    --tp-size: 8\n"
                     "model: llama-3.1-70b-instruct\n",
                     catalogs().gpus, diags);
  ASSERT_TRUE(s.has_value());
  const std::optional<Ledger> l =
      simulate_scenario(*s, SimulationInputs{catalogs().gpus, catalogs().models, {}}, diags);
  ASSERT_TRUE(l.has_value()) << diags.to_string();
  const Fact* mfs = l->fact("mem_fraction_static");
  ASSERT_NE(mfs, nullptr);
  EXPECT_EQ(std::get<double>(mfs->value), (143771.0 - 18 * 1024) / 143771.0);
  const Fact* graphs = l->fact("cuda_graph_max_bs");
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(graphs->value), 256);
}

TEST(SglangErrors, MorePipelineStagesThanLayers) {
  // 64 stages of Llama-3.1-8B's 32 layers: stages 32..63 would get no layer and a zero KV
  // cell size, which divided the token count by zero (SIGFPE) before the plan refused it.
  const std::string text =
      "hardware: {gpu: h200, count: 8, nodes: 8}\n"
      "engine:\n  name: sglang\n  version: 0.5.9\n  args:\n    --pp-size: 64\n"
      "model: llama-3.1-8b-instruct\n";
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("pp.yaml", text, catalogs().gpus, diags);
  ASSERT_TRUE(s && diags.empty()) << diags.to_string();
  validate_engine(*s, catalogs().gpus, catalogs().models, diags);
  EXPECT_EQ(diags.to_string(),
            "pp.yaml:6:16: --pp-size 64 is more than the 32 layers of llama-3.1-8b-instruct; a "
            "pipeline stage would hold no layer\n");
  diags = Diagnostics{};
  EXPECT_FALSE(
      simulate_scenario(*s, SimulationInputs{catalogs().gpus, catalogs().models, {}}, diags));
  EXPECT_EQ(diags.count(), 1u);
}

std::string validation_errors(const std::string& args) {
  const std::string text =
      "hardware: {gpu: h200, count: 8}\nengine:\n  name: sglang\n"
      "  version: 0.5.9\n  args: {" +
      args + "}\nmodel: llama-3.1-8b-instruct\n";
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("layout.yaml", text, catalogs().gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string();
  validate_engine(*s, catalogs().gpus, catalogs().models, diags);
  return diags.to_string();
}

TEST(SglangErrors, ParallelCountsAreBoundedAndTheirProductDoesNotOverflow) {
  EXPECT_EQ(validation_errors("--tp-size: 5000"),
            "layout.yaml:5:21: --tp-size must be at most 4096, got 5000\n"
            "layout.yaml:1:30: the hardware has 8 GPUs but --tp-size 1 × --pp-size 1 × "
            "--dp-size 1 uses 1\n");
  // 4096^3 = 68,719,476,736 GPUs: an int product overflowed (UB) before it was 64-bit.
  EXPECT_EQ(validation_errors("--tp-size: 4096, --pp-size: 4096, --dp-size: 4096"),
            "layout.yaml:1:30: the hardware has 8 GPUs but --tp-size 4096 × --pp-size 4096 × "
            "--dp-size 4096 uses 68719476736\n"
            "layout.yaml:5:21: --tp-size 4096 does not divide the 32 attention heads of "
            "llama-3.1-8b-instruct; SGLang stops with AssertionError: 32 is not divisible by "
            "4096\n");
}

// A flag whose memory effect is not modelled is refused by name: answering as if it were not
// there would be silently optimistic (SGLang's --quantization fp8 used to change nothing; its
// online FP8 is modelled now, fp8_per_tensor_test.cc, other online methods are refused).
TEST(SglangErrors, FlagsWhoseMemoryIsNotModelledAreRefusedByName) {
  EXPECT_EQ(validation_errors("--tp-size: 8, --quantization: w8a8_int8"),
            "layout.yaml:5:40: --quantization w8a8_int8 quantizes llama-3.1-8b-instruct online, "
            "which gpumem does not model; name a quantized checkpoint instead\n");
  EXPECT_EQ(validation_errors("--tp-size: 8, --enable-flashinfer-allreduce-fusion: true"),
            "layout.yaml:5:62: --enable-flashinfer-allreduce-fusion allocates FlashInfer's fused "
            "all-reduce workspace, which gpumem does not model\n");
  // NEXTN drafts with the model's own MTP layer, which Llama has none of (a NextN draft of
  // DeepSeek-V3 is simulated: draft_weights_test.cc, SglangNextN below); EAGLE over a model
  // without one needs a draft.
  EXPECT_EQ(validation_errors("--tp-size: 8, --speculative-algorithm: NEXTN"),
            "layout.yaml:5:49: --speculative-algorithm NEXTN: the MTP draft of LlamaForCausalLM "
            "is not modelled (gpumem models DeepSeek-V3, V3.2, GLM-4.5 and GLM-5 NextN "
            "drafts)\n");
  EXPECT_EQ(validation_errors("--tp-size: 8, --speculative-algorithm: EAGLE"),
            "layout.yaml:5:49: --speculative-algorithm EAGLE needs "
            "--speculative-draft-model-path\n");
}

}  // namespace
}  // namespace gpumem
