// The fit advice over every lever an engine has (simulate/fit_advice.h): each proposal is a
// simulated start-up that starts, and "starts" may ask for headroom (--min-headroom).
#include "simulate/fit_advice.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/scenario.h"
#include "engine/engine_model.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

struct Simulated {
  Scenario scenario;
  Ledger ledger;
};

Simulated simulate_text(const std::string& text) {
  const TestCatalogs& c = test_catalogs();
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("fit.yaml", text, c.gpus, diags);
  EXPECT_TRUE(s) << diags.to_string();
  std::optional<Ledger> l = simulate_scenario(*s, SimulationInputs{c.gpus, c.models, {}}, diags);
  EXPECT_TRUE(l) << diags.to_string();
  return {*s, *l};
}

FitAdviceRecord advise(const Simulated& sim, Bytes min_headroom = bytes(0)) {
  const TestCatalogs& c = test_catalogs();
  return find_fit(sim.scenario, SimulationInputs{c.gpus, c.models, {}}, sim.ledger, min_headroom);
}

// vLLM 0.10.1, a 14B model over two RTX 4090s at 0.98 utilization: the KV cache takes what
// the budget leaves and the CUDA graphs of 512 sizes then miss by 1.12 MiB. Fewer graphs,
// fewer sequences (the capture sizes follow max_num_seqs x 2) or none at all start; an fp8
// KV cache does not (the cache grows into the same budget), nor a shorter maximum length.
constexpr const char* kGraphsDoNotFit =
    "hardware: {gpu: rtx-4090, count: 2}\n"
    "engine:\n  name: vllm\n  version: 0.10.1\n"
    "  args: {--tensor-parallel-size: 2, --gpu-memory-utilization: 0.98, "
    "--max-model-len: 90112}\n"
    "model: deepseek-r1-distill-qwen-14b\n";

// A count found is the largest that starts: one more does not.
TEST(FitAdvice, CountsFoundAreTheLargestThatStart) {
  const std::string base = kGraphsDoNotFit;
  const std::string more_seqs = base.substr(0, base.find("--max-model-len")) +
                                "--max-num-seqs: 28, " + base.substr(base.find("--max-model-len"));
  EXPECT_FALSE(simulate_text(more_seqs).ledger.fits());
  const std::string seqs = base.substr(0, base.find("--max-model-len")) + "--max-num-seqs: 27, " +
                           base.substr(base.find("--max-model-len"));
  EXPECT_TRUE(simulate_text(seqs).ledger.fits());
}

TEST(FitAdvice, EveryVllmLeverIsSimulated) {
  const Simulated sim = simulate_text(kGraphsDoNotFit);
  ASSERT_FALSE(sim.ledger.fits());
  const FitAdviceRecord advice = advise(sim);
  EXPECT_EQ(advice.options, (std::vector<FitOption>{{"--cuda-graph-sizes", "39", "512"},
                                                    {"--max-num-seqs", "27", "256"},
                                                    {"--enforce-eager", "true", "off"}}));
  EXPECT_EQ(advice.none_found,
            (std::vector<std::string>{"--gpu-memory-utilization", "--max-model-len",
                                      "--max-num-batched-tokens", "--kv-cache-dtype"}));
  EXPECT_EQ(advise_fit(advice, sim.scenario),
            "\nwhat would make it start (each alone, simulated):\n"
            "  no --gpu-memory-utilization from 0.05 to 1.00\n"
            "  --cuda-graph-sizes 39 (instead of 512)\n"
            "  no smaller --max-model-len\n"
            "  --max-num-seqs 27 (instead of 256)\n"
            "  no smaller --max-num-batched-tokens\n"
            "  --enforce-eager (instead of off)\n"
            "  not --kv-cache-dtype fp8 either\n");
}

TEST(FitAdvice, ASwitchAlreadyOnIsNotALever) {
  std::string text = kGraphsDoNotFit;
  text.replace(text.find("--max-model-len"), 0, "--enforce-eager: true, ");
  const Simulated sim = simulate_text(text);
  for (const FitKnob& k : find_engine("vllm")->fit_knobs(sim.scenario)) {
    EXPECT_NE(k.flag, "--enforce-eager");
  }
}

// With 0.98 utilization vLLM keeps 18 to 19 MiB free at its tightest step once the graphs fit;
// asked for a GiB, no single flag gives it (less utilization leaves the 90,112-token request
// without room).
TEST(FitAdvice, MinHeadroomDefinesStarting) {
  std::string text = kGraphsDoNotFit;
  text.replace(text.find("--max-model-len"), 0, "--cuda-graph-sizes: 39, ");
  const Simulated sim = simulate_text(text);
  ASSERT_TRUE(sim.ledger.fits());
  EXPECT_TRUE(starts_safely(sim.ledger, bytes(0)));
  EXPECT_TRUE(starts_safely(sim.ledger, mib(18)));
  EXPECT_FALSE(starts_safely(sim.ledger, mib(19)));
  const FitAdviceRecord advice = advise(sim, gib(1));
  EXPECT_EQ(advice.min_headroom, gib(1));
  EXPECT_TRUE(advice.options.empty());
  const std::string text_advice = advise_fit(advice, sim.scenario);
  EXPECT_EQ(text_advice.substr(0, text_advice.find('\n', 1) + 1),
            "\nwhat would make it start with 1,024.00 MiB of headroom (each alone, simulated):\n");
}

// SGLang 0.5.18 at --mem-fraction-static 0.95 on one RTX 4090: the attention backend's
// buffers do not fit. A lower fraction or a shorter context (a smaller request pool)
// start it; the graphs come later, so turning them off does not.
TEST(FitAdvice, EverySglangLeverIsSimulated) {
  const Simulated sim = simulate_text(
      "hardware: {gpu: rtx-4090, count: 1}\n"
      "engine:\n  name: sglang\n  version: 0.5.18\n"
      "  args: {--mem-fraction-static: 0.95}\n"
      "model: llama-3.1-8b-instruct\n");
  ASSERT_FALSE(sim.ledger.fits());
  const FitAdviceRecord advice = advise(sim);
  EXPECT_EQ(advice.options, (std::vector<FitOption>{{"--mem-fraction-static", "0.93", "0.950"},
                                                    {"--context-length", "77824", "131072"}}));
  EXPECT_EQ(advice.none_found,
            (std::vector<std::string>{"--cuda-graph-max-bs", "--disable-cuda-graph",
                                      "--kv-cache-dtype"}));
}

// Llama 3.1 70B over two RTX 4090s, 8,192 tokens: 65.7 GiB of weights a rank do not fit 24 GB.
// The fewest whole GiB vLLM keeps in CPU memory (--cpu-offload-gb) that make it start is
// proposed, found by doubling then bisecting: one GiB fewer does not start.
constexpr const char* kWeightsDoNotFit =
    "hardware: {gpu: rtx-4090, count: 2}\n"
    "engine:\n  name: vllm\n  version: 0.21.0\n"
    "  args: {--tensor-parallel-size: 2, --max-model-len: 8192}\n"
    "model: llama-3.1-70b-instruct\n";

// `base` with `--cpu-offload-gb: gib` put first in its args, before `first_arg`.
std::string with_offload(const std::string& base, const std::string& first_arg, int gib) {
  std::string text = base;
  text.replace(text.find(first_arg), 0, "--cpu-offload-gb: " + std::to_string(gib) + ", ");
  return text;
}

// The --cpu-offload-gb the advice proposes for `base`, which fails at its weights; checked to
// be the fewest: it starts, one GiB less does not. -1 when no offload is proposed.
int proposed_offload_gib(const std::string& base, const std::string& first_arg,
                         const std::string& instead_of) {
  const Simulated sim = simulate_text(base);
  EXPECT_FALSE(sim.ledger.fits());
  if (sim.ledger.fits()) return -1;
  EXPECT_EQ(sim.ledger.first_failure()->failed_step()->name, "weights");
  const FitAdviceRecord advice = advise(sim);
  const auto offload =
      std::find_if(advice.options.begin(), advice.options.end(),
                   [](const FitOption& o) { return o.flag == "--cpu-offload-gb"; });
  EXPECT_NE(offload, advice.options.end());
  if (offload == advice.options.end()) return -1;
  EXPECT_EQ(offload->instead_of, instead_of);
  const int gib = std::stoi(offload->value);
  EXPECT_TRUE(simulate_text(with_offload(base, first_arg, gib)).ledger.fits());
  EXPECT_FALSE(simulate_text(with_offload(base, first_arg, gib - 1)).ledger.fits());
  EXPECT_NE(
      advise_fit(advice, sim.scenario)
          .find("  --cpu-offload-gb " + offload->value + " (instead of " + instead_of + ")\n"),
      std::string::npos);
  return gib;
}

TEST(FitAdvice, WeightsThatDoNotFitAreOffloadedByTheFewestGib) {
  EXPECT_EQ(proposed_offload_gib(kWeightsDoNotFit, "--max-model-len", "0"), 48);
}

// SGLang's offloader moves the same parameters (utils/offloader.py OffloaderV1): Qwen3-14B's
// 27.5 GiB of bfloat16 weights do not fit one RTX 4090, and the fewest whole GiB that let
// SGLang size a KV pool after them is proposed: 8, one fewer does not start.
constexpr const char* kSglangWeightsDoNotFit =
    "hardware: {gpu: rtx-4090, count: 1}\n"
    "engine:\n  name: sglang\n  version: 0.5.9\n"
    "  args: {--context-length: 8192}\n"
    "model: qwen3-14b\n";

TEST(FitAdvice, SglangOffloadsTheFewestGibToo) {
  EXPECT_EQ(proposed_offload_gib(kSglangWeightsDoNotFit, "--context-length", "0"), 8);
}

// The offload is searched only for weights that do not fit, and only where vLLM takes the
// flag for the model: NVIDIA's FP8 export is refused by name (a quantized model's replaced
// parameters may return to the GPU), so it is no lever there and the advice does not name it.
TEST(FitAdvice, OffloadIsNoLeverForAKvCacheOrARefusedModel) {
  const FitAdviceRecord kv = advise(simulate_text(kGraphsDoNotFit));
  for (const FitOption& o : kv.options) EXPECT_NE(o.flag, "--cpu-offload-gb");
  for (const std::string& f : kv.none_found) EXPECT_NE(f, "--cpu-offload-gb");
  std::string fp8 = kWeightsDoNotFit;
  fp8.replace(fp8.find("llama-3.1-70b-instruct"), std::string("llama-3.1-70b-instruct").size(),
              "llama-3.1-70b-instruct-fp8-nvidia");
  fp8.replace(fp8.find("count: 2"), std::string("count: 2").size(), "count: 1");
  fp8.replace(fp8.find("--tensor-parallel-size: 2, "),
              std::string("--tensor-parallel-size: 2, ").size(), "");
  const Simulated sim = simulate_text(fp8);
  ASSERT_FALSE(sim.ledger.fits());
  ASSERT_EQ(sim.ledger.first_failure()->failed_step()->name, "weights");
  const FitAdviceRecord advice = advise(sim);
  for (const FitOption& o : advice.options) EXPECT_NE(o.flag, "--cpu-offload-gb");
  for (const std::string& f : advice.none_found) EXPECT_NE(f, "--cpu-offload-gb");
  EXPECT_EQ(advise_fit(advice, sim.scenario).find("--cpu-offload-gb"), std::string::npos);
}

}  // namespace
}  // namespace gpumem
