// vLLM's --data-parallel-size: a dense model's DP ranks are independent engines; a MoE
// model's span their MoE layers over every rank (experts sliced or, with expert parallelism,
// dealt out over TP x DP), add a DP and an EP communicator, and all-gather every rank's
// tokens before the experts. Expected bytes are derived here from Phi-3.5-MoE's published
// config (16 experts of width 6400, hidden 4096, 32 layers).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/vllm/activation_model.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kPhiMoe = "microsoft--Phi-3.5-MoE-instruct";

constexpr std::int64_t kHidden = 4096;
constexpr std::int64_t kLayers = 32;
constexpr std::int64_t kHeads = 32;
constexpr std::int64_t kKvHeads = 8;
constexpr std::int64_t kHeadDim = 128;
constexpr std::int64_t kExperts = 16;
constexpr std::int64_t kExpertWidth = 6400;
constexpr std::int64_t kVocab = 32064;
// The LongRoPE caches (phimoe_test.cc): short, long and their concatenation, bfloat16.
constexpr std::int64_t kRopeBytes = (4096 + 131072 + (4096 + 131072)) * 128 * 2;

// Parameters of one rank whose attention, embedding and biased head are split `tp` ways and
// which holds `experts` experts, each of width 6400 / `width_split` (phimoe_test.cc's
// rank_params with the MoE layer's own split).
constexpr std::int64_t rank_params(std::int64_t tp, std::int64_t experts,
                                   std::int64_t width_split) {
  const std::int64_t qkv_rows = (kHeads + 2 * kKvHeads) / tp * kHeadDim;
  const std::int64_t attention =
      qkv_rows * kHidden + qkv_rows + kHidden * (kHeads / tp * kHeadDim) + kHidden;
  const std::int64_t moe =
      kExperts * kHidden + experts * 3 * kHidden * (kExpertWidth / width_split);
  const std::int64_t layer = attention + moe + 2 * 2 * kHidden;
  return 2 * (kVocab / tp) * kHidden + kVocab / tp + kLayers * layer + 2 * kHidden;
}

std::string scenario(const std::string& model, int gpus, const std::string& args,
                     const std::string& version = "0.21.0") {
  return "hardware: {gpu: h200, count: " + std::to_string(gpus) +
         "}\nengine:\n  name: vllm\n  version: " + version + "\n  args:\n" + args +
         "model: " + (model.find("--") == std::string::npos ? model : public_config_dir(model)) +
         "\n";
}

std::int64_t communication_in(const Ledger& l, const std::string& step) {
  for (const LedgerStep& s : l.gpus.front().steps) {
    if (s.name == step) {
      return s.delta_by_category[static_cast<size_t>(Category::kCommunication)].value();
    }
  }
  ADD_FAILURE() << "no step " << step;
  return -1;
}

std::int64_t replicas(const Ledger& l) {
  const Fact* f = l.fact("data_parallel_replicas");
  return f == nullptr ? -1 : std::get<std::int64_t>(f->value);
}

TEST(VllmDataParallel, MoeLayersSpanEveryDataParallelRank) {
  // FusedMoEParallelConfig.make: without expert parallelism each of the 16 experts is sliced
  // over TP x DP = 2 ranks; with it each rank holds 8 whole experts. Attention, embedding
  // and head stay whole at TP 1.
  const Ledger sliced = scenario_ledger(scenario(kPhiMoe, 2, "    --data-parallel-size: 2\n"));
  ASSERT_TRUE(sliced.fits());
  EXPECT_EQ(ledger_fact(sliced, "weights_logical_bytes"), 2 * rank_params(1, 16, 2) + kRopeBytes);
  EXPECT_EQ(2 * rank_params(1, 16, 2) + kRopeBytes, 43'550'194'304LL);
  EXPECT_EQ(replicas(sliced), 2);

  const Ledger whole = scenario_ledger(
      scenario(kPhiMoe, 2, "    --data-parallel-size: 2\n    --enable-expert-parallel: true\n"));
  ASSERT_TRUE(whole.fits());
  EXPECT_EQ(ledger_fact(whole, "weights_logical_bytes"), 2 * rank_params(1, 8, 1) + kRopeBytes);
  // The same bytes either way: every rank holds half of every expert's parameters.
  EXPECT_EQ(rank_params(1, 8, 1), rank_params(1, 16, 2));
  // Attention's KV heads are not split: every layer's 8 KV heads per rank, bfloat16, in
  // blocks of 16 tokens.
  EXPECT_EQ(ledger_fact(sliced, "kv_page_bytes"), 16 * 2 * kKvHeads * kHeadDim * 2);
}

TEST(VllmDataParallel, AMoeModelAddsADataParallelAndAnExpertParallelCommunicator) {
  // parallel_state.py initialize_model_parallel: at TP 1 x DP 2 the DP group and the EP group
  // both hold GPUs 0 and 1, each a PyNccl communicator; at TP 2 x DP 1 so do the TP group and
  // the EP group, which without custom all-reduce and symmetric memory is all the TP group
  // adds. One GPU has none.
  const Ledger dp2 = scenario_ledger(scenario(kPhiMoe, 2, "    --data-parallel-size: 2\n"));
  const Ledger tp2 = scenario_ledger(
      scenario(kPhiMoe, 2,
               "    --tensor-parallel-size: 2\n    --disable-custom-all-reduce: true\n  env:\n"
               "    VLLM_ALLREDUCE_USE_SYMM_MEM: \"0\"\n"));
  const Ledger one = scenario_ledger(scenario(kPhiMoe, 1, "    --tensor-parallel-size: 1\n"));
  EXPECT_GT(communication_in(dp2, "distributed"), 0);
  EXPECT_EQ(communication_in(dp2, "distributed"), communication_in(tp2, "distributed"));
  EXPECT_EQ(communication_in(one, "distributed"), 0);
}

TEST(VllmDataParallel, ADenseModelsReplicasAreIndependentEngines) {
  // v1/engine/core.py run_engine_core: "Non-MoE DP ranks are completely independent": each
  // GPU runs the one-GPU start-up, with no communicator at all.
  const Ledger one =
      scenario_ledger(scenario("llama-3.1-8b-instruct", 1, "    --tensor-parallel-size: 1\n"));
  const Ledger two =
      scenario_ledger(scenario("llama-3.1-8b-instruct", 2, "    --data-parallel-size: 2\n"));
  ASSERT_TRUE(one.fits());
  ASSERT_TRUE(two.fits());
  ASSERT_EQ(two.gpus.size(), 2u);
  EXPECT_EQ(communication_in(two, "distributed"), 0);
  for (const GpuLedger& g : two.gpus) {
    ASSERT_EQ(g.steps.size(), one.gpus.front().steps.size());
    for (size_t i = 0; i < g.steps.size(); ++i) {
      EXPECT_EQ(g.steps[i].used_after, one.gpus.front().steps[i].used_after) << g.steps[i].name;
    }
  }
  EXPECT_EQ(ledger_fact(two, "kv_tokens"), ledger_fact(one, "kv_tokens"));
  EXPECT_EQ(replicas(two), 2);
}

TEST(VllmDataParallel, TheExpertsSeeEveryRanksTokens) {
  // layers/fused_moe/layer.py do_naive_dispatch_combine with allgather_reducescatter: at DP 4
  // a layer over 1,000 tokens gathers 4,000 rows of hidden states and router logits, routes
  // them, and reduce-scatters 1,000 rows back.
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kPhiMoe) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  const vllm::ActivationConstants k;
  const std::vector<vllm::Activation> gathered =
      vllm::layer_activations(*a, vllm::ForwardShape{1, 4, 4}, 0, 1000, 2, k);
  const auto bytes_of = [](const std::vector<vllm::Activation>& l, const std::string& name) {
    const auto it =
        std::find_if(l.begin(), l.end(), [&](const vllm::Activation& t) { return t.name == name; });
    return it == l.end() ? std::int64_t{-1} : it->bytes.value();
  };
  EXPECT_EQ(bytes_of(gathered, "router_logits"), 1000 * kExperts * 2);
  EXPECT_EQ(bytes_of(gathered, "dispatched_hidden_states"), 4000 * kHidden * 2);
  EXPECT_EQ(bytes_of(gathered, "dispatched_router_logits"), 4000 * kExperts * 2);
  EXPECT_EQ(bytes_of(gathered, "topk_ids"), 4000 * 2 * 4);
  // intermediate_cache13: rows x top-2 x max(2 x 6400 / 4, 4096).
  EXPECT_EQ(bytes_of(gathered, "intermediate_cache13"), 4000 * 2 * 4096 * 2);
  EXPECT_EQ(bytes_of(gathered, "combined_hidden_states"), 1000 * kHidden * 2);
  // One rank alone gathers nothing.
  const std::vector<vllm::Activation> alone =
      vllm::layer_activations(*a, vllm::ForwardShape{1, 1, 1}, 0, 1000, 2, k);
  EXPECT_EQ(bytes_of(alone, "dispatched_hidden_states"), -1);
  EXPECT_EQ(bytes_of(alone, "topk_ids"), 1000 * 2 * 4);
}

TEST(VllmDataParallel, WhatIsNotModelledIsRefusedByName) {
  EXPECT_EQ(scenario_errors(scenario(kPhiMoe, 2, "    --data-parallel-size: 2\n", "0.10.2")),
            "f.yaml:6:27: --data-parallel-size above 1 with vLLM 0.10.2 is not modelled (from "
            "0.11.0)\n");
  EXPECT_EQ(scenario_errors(scenario(kPhiMoe, 4,
                                     "    --data-parallel-size: 2\n    --tensor-parallel-size: 2\n"
                                     "    --enable-expert-parallel: true\n")),
            "f.yaml:6:27: --data-parallel-size above 1 with --enable-expert-parallel and "
            "--tensor-parallel-size above 1 is not modelled: vLLM then runs the MoE layers "
            "sequence-parallel, with whole shared experts on every TP rank\n");
  EXPECT_EQ(scenario_errors(scenario(kPhiMoe, 2, "    --data-parallel-size: 4\n")),
            "f.yaml:1:30: the hardware has 2 GPUs but --tensor-parallel-size 1 × "
            "--pipeline-parallel-size 1 × --data-parallel-size 4 uses 4\n");
}

}  // namespace
}  // namespace gpumem
