// The registry of engine models: found by name, refused with a did-you-mean, and each model
// answering for its releases, its flags and its fit-advice knobs.
#include "engine/engine_model.h"

#include <gtest/gtest.h>

#include "support/test_catalogs.h"

namespace gpumem {
namespace {

Scenario scenario_with(const std::string& engine, const std::string& version) {
  const std::string text = "hardware: {gpu: h200, count: 1}\nengine: {name: " + engine +
                           ", version: " + version + "}\nmodel: llama-3.1-8b-instruct\n";
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("e.yaml", text, test_catalogs().gpus, diags);
  return s ? *s : Scenario{};
}

TEST(EngineModels, FoundByNameInNameOrder) {
  ASSERT_EQ(engine_models().size(), 2u);
  EXPECT_EQ(engine_models()[0]->name(), "sglang");
  EXPECT_EQ(engine_models()[1]->name(), "vllm");
  EXPECT_EQ(find_engine("vllm")->title(), "vLLM");
  EXPECT_EQ(find_engine("sglang")->releases_modelled(), "0.4.6 to 0.5.21");
  EXPECT_EQ(find_engine("vllm")->releases_modelled(), "0.10.1 to 0.30.x");
  EXPECT_EQ(find_engine("tensorrt-llm"), nullptr);
  EXPECT_EQ(engine_names(), "sglang and vllm");
}

TEST(EngineModels, EachSpellsItsOwnFlags) {
  EXPECT_EQ(find_engine("vllm")->canonical_flag("--max_model_len"), "--max-model-len");
  EXPECT_EQ(find_engine("sglang")->canonical_flag("--tp-size"), "--tp-size");
}

TEST(EngineModels, FitKnobsFollowTheRelease) {
  const std::vector<FitKnob> old_vllm =
      find_engine("vllm")->fit_knobs(scenario_with("vllm", "0.10.2"));
  std::vector<std::string> flags;
  for (const FitKnob& k : old_vllm) flags.push_back(k.flag);
  EXPECT_EQ(flags, (std::vector<std::string>{"--gpu-memory-utilization", "--cuda-graph-sizes",
                                             "--max-model-len", "--max-num-seqs",
                                             "--max-num-batched-tokens", "--enforce-eager",
                                             "--cpu-offload-gb", "--kv-cache-dtype"}));
  // The offload is a lever for weights that do not fit alone.
  EXPECT_EQ(old_vllm[6].kind, FitKnob::Kind::kOffload);
  EXPECT_EQ(old_vllm[6].failing_step, "weights");
  EXPECT_EQ(old_vllm[0].flag, "--gpu-memory-utilization");
  EXPECT_EQ(old_vllm[0].max_percent, 100);
  EXPECT_EQ(old_vllm[1].flag, "--cuda-graph-sizes");
  const std::vector<FitKnob> new_vllm =
      find_engine("vllm")->fit_knobs(scenario_with("vllm", "0.21.0"));
  EXPECT_EQ(new_vllm[1].flag, "--max-cudagraph-capture-size");
  EXPECT_EQ(new_vllm[1].replaces,
            (std::vector<std::string>{"--cudagraph-capture-sizes", "--cuda-graph-sizes"}));
  const std::vector<FitKnob> sglang =
      find_engine("sglang")->fit_knobs(scenario_with("sglang", "0.5.9"));
  EXPECT_EQ(sglang[0].flag, "--mem-fraction-static");
  EXPECT_EQ(sglang[0].current_fact, "mem_fraction_static");
  EXPECT_EQ(sglang[1].flag, "--cuda-graph-max-bs");
  EXPECT_EQ(sglang[2].flag, "--context-length");
  EXPECT_EQ(sglang[3].flag, "--disable-cuda-graph");
  EXPECT_EQ(sglang[3].kind, FitKnob::Kind::kSwitch);
  EXPECT_EQ(sglang[4].value, "fp8_e4m3");
  EXPECT_EQ(sglang[5].flag, "--cpu-offload-gb");
  EXPECT_EQ(sglang[5].kind, FitKnob::Kind::kOffload);
  EXPECT_EQ(sglang[5].failing_step, "weights");
  EXPECT_EQ(old_vllm[2].flag, "--max-model-len");
  EXPECT_EQ(old_vllm[2].kind, FitKnob::Kind::kMaxLength);
}

// SGLang drops capture sizes above its request pool, so the graph-size search starts at the
// largest pool the flags allow: 4096 rows (4097 through v0.4.6.x), --max-running-requests,
// or 48 under speculative decoding.
TEST(EngineModels, SglangGraphSizeSearchIsBoundedByTheRequestPool) {
  const EngineModel& sglang = *find_engine("sglang");
  EXPECT_EQ(sglang.fit_knobs(scenario_with("sglang", "0.5.9"))[1].bound, 4096);
  EXPECT_EQ(sglang.fit_knobs(scenario_with("sglang", "0.4.6.post5"))[1].bound, 4097);
  Scenario capped = scenario_with("sglang", "0.5.9");
  capped.engine.args.push_back({"--max-running-requests", {"100"}, false, {}, {}});
  EXPECT_EQ(sglang.fit_knobs(capped)[1].bound, 100);
  EXPECT_EQ(find_engine("vllm")->fit_knobs(scenario_with("vllm", "0.21.0"))[1].bound, 0);
}

TEST(EngineModels, AnUnmodelledEngineIsRefusedWithADidYouMean) {
  Scenario s = scenario_with("sglang", "0.5.9");
  s.engine.name = "vlm";
  s.engine.name_loc = {"e.yaml", 2, 17};
  Diagnostics diags;
  EXPECT_EQ(engine_of(s, diags), nullptr);
  EXPECT_EQ(diags.to_string(),
            "e.yaml:2:17: engine 'vlm' is not modelled; gpumem models sglang and vllm; did you "
            "mean 'vllm'?\n");
}

TEST(EngineModels, APlanCarriesTheLayoutAndTheProgram) {
  const Scenario s = scenario_with("sglang", "0.5.9");
  Diagnostics diags;
  const std::unique_ptr<PlannedStartup> p = find_engine("sglang")->plan(
      s, PlanInputs{test_catalogs().gpus, test_catalogs().models}, diags);
  ASSERT_TRUE(p) << diags.to_string();
  EXPECT_EQ(p->engine_label(), "sglang 0.5.9");
  EXPECT_EQ(p->gpu().name, "h200-sxm-141gb");
  EXPECT_EQ(p->world_size(), 1);
  EXPECT_EQ(p->facts().front().id, "mem_fraction_static");
  EXPECT_TRUE(static_cast<bool>(p->program(EngineConstants{})));
}

}  // namespace
}  // namespace gpumem
