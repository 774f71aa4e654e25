// Which model runner vLLM runs (engine/vllm/model_runner.h), release by release, and what
// Model Runner V2 changes in a simulated start-up: before v0.29.0 no CUDA-graph estimate (the
// KV cache takes what V1 keeps for the graphs), from v0.29.0 its own estimate.
#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/scenario.h"
#include "engine/vllm/model_runner.h"
#include "runtime/fact_ids.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem::vllm {
namespace {

Architecture model(const std::string& slug) {
  Diagnostics diags;
  Result<ModelEntry> e = test_catalogs().models.find(slug, diags);
  EXPECT_TRUE(e.ok()) << slug;
  return e.ok() ? e->architecture : Architecture{};
}

bool runs_v2(const std::string& version, const std::string& slug, const EngineFlags& flags = {}) {
  return choose_model_runner(rules_for(*parse_version(version)), model(slug), flags, std::nullopt)
      .v2;
}

TEST(VllmModelRunner, TheDefaultGrowsReleaseByRelease) {
  struct Row {
    std::string slug;
    std::string first_v2;  // the first release of 0.21.0, 0.22.0, ... that runs it on V2
  };
  // 0.22: Qwen3 dense; 0.23: + Llama, Mistral; 0.24: + quantized ones of those; 0.25: every
  // dense model; 0.29: MoE and hybrid models too.
  const Row rows[] = {{"qwen3-8b", "0.22.0"},
                      {"llama-3.1-8b-instruct", "0.23.0"},
                      {"mistral-7b-instruct-v0.3", "0.23.0"},
                      {"llama-3.1-70b-instruct-fp8-nvidia", "0.24.0"},
                      {"qwen2.5-7b-instruct", "0.25.0"},
                      {"qwen2.5-vl-7b-instruct", "0.25.0"},
                      {"qwen3-30b-a3b", "0.29.0"},
                      {"deepseek-v3", "0.29.0"},
                      {"qwen3-next-80b-a3b-instruct", "0.29.0"}};
  const std::string releases[] = {"0.21.0", "0.22.0", "0.23.0", "0.24.0",
                                  "0.25.0", "0.28.1", "0.29.0", "0.30.0"};
  for (const Row& r : rows) {
    for (const std::string& v : releases) {
      EXPECT_EQ(runs_v2(v, r.slug), *parse_version(v) >= *parse_version(r.first_v2))
          << r.slug << " at " << v;
    }
  }
}

TEST(VllmModelRunner, NgramFallsBackToV1AndCannotBeForced) {
  EngineFlags ngram;
  ngram.speculative = SpeculativeFlags{"ngram", "ngram", std::nullopt, 4};
  const ModelRunnerChoice fallback =
      choose_model_runner(rules_for({0, 29, 0, 0}), model("qwen3-8b"), ngram, std::nullopt);
  EXPECT_FALSE(fallback.v2);
  EXPECT_EQ(fallback.warning,
            "Model Runner V2 does not yet support ngram speculative decoding; using the V1 model "
            "runner instead.");
  EXPECT_EQ(
      choose_model_runner(rules_for({0, 25, 0, 0}), model("qwen3-8b"), ngram, std::nullopt).warning,
      "");
  const ModelRunnerChoice forced =
      choose_model_runner(rules_for({0, 29, 0, 0}), model("qwen3-8b"), ngram, true);
  EXPECT_EQ(forced.error,
            "ValueError: Model Runner V2 does not yet support: ngram speculative decoding");
  const ModelRunnerChoice v1 =
      choose_model_runner(rules_for({0, 29, 0, 0}), model("qwen3-8b"), {}, false);
  EXPECT_FALSE(v1.v2);
  EXPECT_EQ(v1.why, "the V1 model runner: VLLM_USE_V2_MODEL_RUNNER=0");
  EXPECT_EQ(
      choose_model_runner(rules_for({0, 24, 0, 0}), model("qwen3-30b-a3b"), {}, std::nullopt).why,
      "the V1 model runner: Model Runner V2 is the default for Llama, Mistral, Qwen3, "
      "Qwen2-MoE, DeepSeek-V2 and Granite-MoE models (v0.24), which Qwen3MoeForCausalLM is "
      "not");
}

std::optional<Ledger> run(const std::string& version, const std::string& env,
                          const std::string& args, Diagnostics& diags) {
  const std::string text =
      "hardware: {gpu: h200, count: 1}\nengine:\n  name: vllm\n  version: " + version +
      "\n  args:\n    --tensor-parallel-size: 1\n" + args +
      (env.empty() ? "" : "  env:\n    VLLM_USE_V2_MODEL_RUNNER: " + env + "\n") +
      "model: llama-3.1-8b-instruct\n";
  std::optional<Scenario> s = parse_scenario("r.yaml", text, test_catalogs().gpus, diags);
  if (!s || !diags.empty()) return std::nullopt;
  return simulate_scenario(*s, SimulationInputs{test_catalogs().gpus, test_catalogs().models, {}},
                           diags);
}

Ledger simulate(const std::string& version, const std::string& env, const std::string& args = "") {
  Diagnostics diags;
  std::optional<Ledger> l = run(version, env, args, diags);
  EXPECT_TRUE(l && diags.empty()) << diags.to_string();
  return l ? *l : Ledger{};
}

Bytes size_fact(const Ledger& l, std::string_view key) {
  const Fact* f = l.gpus.front().fact(key);
  EXPECT_NE(f, nullptr) << key;
  return f == nullptr ? Bytes{} : std::get<Bytes>(f->value);
}

bool logged(const Ledger& l, std::string_view line) {
  for (const LedgerStep& s : l.gpus.front().steps) {
    if (std::find(s.log_lines.begin(), s.log_lines.end(), line) != s.log_lines.end()) return true;
  }
  return false;
}

bool has_step(const Ledger& l, std::string_view name) {
  const auto& steps = l.gpus.front().steps;
  return std::any_of(steps.begin(), steps.end(),
                     [&](const LedgerStep& s) { return s.name == name; });
}

// Llama-3.1-8B on one H200 at v0.25: V2 makes no estimate, so its KV cache is V1's plus V1's
// estimate, to the byte, and plus the non-torch memory V1's estimate captures leave (the
// graphs' own device memory, which V2 first allocates at the real capture, after the KV cache).
TEST(VllmModelRunner, BeforeV029V2ReservesNothingForTheGraphs) {
  const Ledger v2 = simulate("0.25.0", "");
  const Ledger v1 = simulate("0.25.0", "\"0\"");
  EXPECT_TRUE(logged(v2, "Using V2 Model Runner"));
  EXPECT_FALSE(logged(v1, "Using V2 Model Runner"));
  EXPECT_FALSE(has_step(v2, "cuda_graph_estimate"));
  ASSERT_TRUE(has_step(v1, "cuda_graph_estimate"));
  const Bytes v1_estimate = size_fact(v1, "cuda_graph_estimate_bytes");
  EXPECT_GT(v1_estimate.value(), 0);
  const Bytes left_by_estimate =
      size_fact(v1, "non_torch_bytes") - size_fact(v2, "non_torch_bytes");
  EXPECT_GT(left_by_estimate.value(), 0);
  EXPECT_EQ(size_fact(v2, fact_id::kKvBytes),
            size_fact(v1, fact_id::kKvBytes) + v1_estimate + left_by_estimate);
}

// From v0.29.0 V2 measures every PIECEWISE graph and the two largest FULL ones and
// extrapolates the other FULL graphs; with two FULL graphs nothing is extrapolated, and the
// estimate is what the capture itself takes (the same graphs, in the same order, in a pool of
// their own).
TEST(VllmModelRunner, FromV029TheEstimateOfTwoFullGraphsIsTheCapture) {
  const Ledger l = simulate("0.29.0", "", "    --cudagraph-capture-sizes: [1, 2]\n");
  EXPECT_TRUE(logged(l, "Using V2 Model Runner"));
  ASSERT_TRUE(has_step(l, "cuda_graph_estimate"));
  EXPECT_EQ(size_fact(l, "cuda_graph_estimate_bytes"), size_fact(l, fact_id::kCudaGraphBytes));
  EXPECT_EQ(l.gpus.front().fact("cuda_graph_estimate_sample_piecewise_size_2"), nullptr);
  EXPECT_NE(l.gpus.front().fact("cuda_graph_estimate_sample_full_size_2"), nullptr);
}

TEST(VllmModelRunner, AskingForV2BeforeV022IsRefused) {
  Diagnostics diags;
  EXPECT_FALSE(run("0.21.0", "\"1\"", "", diags));
  EXPECT_EQ(diags.to_string(),
            "r.yaml:8:31: VLLM_USE_V2_MODEL_RUNNER=1 before vLLM 0.22.0 runs the experimental "
            "Model Runner V2, which gpumem models from 0.22.0\n");
}

// vllm envs.py maybe_convert_bool reads it as bool(int(...)): a word is vLLM's own
// ValueError, never a silent default.
TEST(VllmModelRunner, AValueThatIsNotZeroOrOneIsRefused) {
  Diagnostics diags;
  EXPECT_FALSE(run("0.25.0", "\"yes\"", "", diags));
  EXPECT_EQ(diags.to_string(), "r.yaml:8:31: VLLM_USE_V2_MODEL_RUNNER must be 0 or 1, got 'yes'\n");
}

// What releases after 0.21 change that gpumem does not model is refused by name, at the
// scenario's version, never answered with the rules of an older release.
std::string refusal(const std::string& model, const std::string& version, int gpus,
                    const std::string& args, const std::string& env = "") {
  const std::string text = "hardware: {gpu: h200, count: " + std::to_string(gpus) +
                           "}\nengine:\n  name: vllm\n  version: " + version +
                           "\n  args:\n    --tensor-parallel-size: " + std::to_string(gpus) + "\n" +
                           args + (env.empty() ? "" : "  env:\n" + env) + "model: " + model + "\n";
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("n.yaml", text, test_catalogs().gpus, diags);
  if (s && diags.empty()) {
    (void)simulate_scenario(*s, SimulationInputs{test_catalogs().gpus, test_catalogs().models, {}},
                            diags);
  }
  return diags.to_string();
}

TEST(VllmModelRunner, NewerReleaseChangesGpumemDoesNotModelAreRefused) {
  const std::string v4 = "deepseek-ai/DeepSeek-V4-Flash";
  EXPECT_EQ(refusal(v4, "0.22.0", 2, "    --kv-cache-dtype: fp8\n", ""), "");
  EXPECT_EQ(refusal(v4, "0.23.0", 2, "    --kv-cache-dtype: fp8\n"),
            "n.yaml:4:12: vLLM 0.23.0 lays DeepSeek-V4's caches out by their occupied slots only "
            "(PR #44454, 0.23.0), which gpumem does not model; it models DeepSeek-V4 in vLLM "
            "0.20.0 to 0.22.x\n");
  const std::string gemma = "google/gemma-4-26B-A4B";
  const std::string text_only = "    --language-model-only: true\n";
  EXPECT_EQ(refusal(gemma, "0.25.0", 1, text_only), "");
  EXPECT_EQ(refusal(gemma, "0.26.0", 1, text_only),
            "n.yaml:4:12: vLLM 0.26.0 sizes Gemma 4's KV cache about 40 % larger than 0.25.1 does "
            "(vllm issue #49878), for a cause gpumem has not pinned down; it models Gemma 4 in "
            "vLLM up to 0.25.x\n");
  EXPECT_NE(
      refusal(gemma, "0.22.0", 1, "")
          .find("vLLM 0.22.0 encodes Gemma 4's dummy video frames in batches (from 0.22.0), which "
                "gpumem does not model"),
      std::string::npos);
  // Qwen3-Next on the V1 runner: its estimate from 0.26.0; V2 (0.29 on) or no estimate is
  // modelled.
  const std::string next = "qwen3-next-80b-a3b-instruct";
  const std::string v1 = "    VLLM_USE_V2_MODEL_RUNNER: \"0\"\n";
  EXPECT_EQ(refusal(next, "0.25.0", 2, "", v1), "");
  EXPECT_EQ(refusal(next, "0.29.0", 2, ""), "");
  EXPECT_EQ(
      refusal(next, "0.26.0", 2, "", v1 + "    VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS: \"0\"\n"),
      "");
  EXPECT_EQ(refusal(next, "0.26.0", 2, "", v1),
            "n.yaml:4:12: vLLM 0.26.0's V1 CUDA-graph estimate of a Gated DeltaNet model charges "
            "a transient of its first FULL sample that grows with --max-num-batched-tokens (vllm "
            "issue #50780, from 0.26.0), which gpumem does not model; "
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 or -O0 launches are modelled\n");
}

}  // namespace
}  // namespace gpumem::vllm
