// The model a scenario runs: `model:`, or the engine's own model flag, and both together.
#include "engine/model_resolution.h"

#include <gtest/gtest.h>

#include "engine/engine_model.h"
#include "support/hub_fixture.h"
#include "support/model_configs.h"
#include "support/test_catalogs.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

// Plans `engine_text` (the scenario's engine mapping) with `model_line` and returns the
// diagnostics' text; `facts` gets the planned context length (SGLang) or max_model_len (vLLM).
std::string plan_errors(const std::string& engine_text, const std::string& model_line,
                        std::string* facts = nullptr) {
  const std::string text =
      "hardware: {gpu: h200, count: 1}\nengine: " + engine_text + "\n" + model_line;
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("m.yaml", text, test_catalogs().gpus, diags);
  if (!s) return diags.to_string();
  const EngineModel* engine = engine_of(*s, diags);
  if (engine != nullptr && diags.empty()) {
    std::unique_ptr<PlannedStartup> p =
        engine->plan(*s, PlanInputs{test_catalogs().gpus, test_catalogs().models}, diags);
    if (p && facts != nullptr) {
      for (const Fact& f : p->facts()) {
        if (f.id == "context_len" || f.id == "max_model_len") {
          *facts = std::to_string(std::get<std::int64_t>(f.value));
        }
      }
    }
  }
  return diags.to_string();
}

TEST(ScenarioModel, TheEngineFlagNamesTheModelWhenModelIsAbsent) {
  std::string context;
  EXPECT_EQ(plan_errors("{name: sglang, version: 0.5.9, args: {--model-path: "
                        "meta-llama/Llama-3.1-8B-Instruct}}",
                        "", &context),
            "");
  EXPECT_EQ(context, "131072");
  EXPECT_EQ(plan_errors("{name: vllm, version: 0.21.0, args: {--model: qwen3-8b, "
                        "--max-model-len: 4096}}",
                        "", &context),
            "");
  EXPECT_EQ(context, "4096");
  // SGLang's alias --model is its --model-path.
  EXPECT_EQ(plan_errors("{name: sglang, version: 0.5.9, args: {--model: qwen3-8b}}", ""), "");
}

TEST(ScenarioModel, BothGivenMustNameTheSameModel) {
  EXPECT_EQ(plan_errors("{name: sglang, version: 0.5.9, args: {--model-path: "
                        "META-LLAMA/llama-3.1-8b-instruct}}",
                        "model: llama-3.1-8b-instruct\n"),
            "");
  EXPECT_EQ(plan_errors("{name: vllm, version: 0.21.0, args: {--model: Qwen/Qwen3-14B}}",
                        "model: qwen3-8b\n"),
            "m.yaml:2:55: --model 'Qwen/Qwen3-14B' (catalog entry qwen3-14b (repository id "
            "Qwen/Qwen3-14B)) names another model than the scenario's 'model:' (catalog entry "
            "qwen3-8b); give one of them\n");
}

TEST(ScenarioModel, NeitherGivenIsAMissingKey) {
  EXPECT_EQ(plan_errors("{name: sglang, version: 0.5.9}", ""),
            "m.yaml:1:1: missing key 'model' in the scenario\n");
}

TEST(ScenarioModel, AnUnknownFlagModelIsReportedAtTheFlag) {
  EXPECT_EQ(plan_errors("{name: sglang, version: 0.5.9, args: {--model-path: qwen3-8bb}}", ""),
            "m.yaml:2:61: unknown model 'qwen3-8bb'; did you mean 'qwen3-8b'?\n");
}

}  // namespace
}  // namespace gpumem

namespace gpumem {
namespace {

// A checkpoint directory holding Qwen2.5-0.5B-Instruct's config.json and a model.safetensors
// header declaring `tensors`; returns the directory.
std::string checkpoint_dir(const std::string& name, const std::vector<FixtureTensor>& tensors) {
  const std::filesystem::path dir = fresh_dir(name);
  const std::string config = public_config_dir("Qwen--Qwen2.5-0.5B-Instruct") + "/config.json";
  std::filesystem::copy_file(config, dir / "config.json");
  write_text(dir / "model.safetensors", safetensors_prefix(tensors));
  return dir.string();
}

std::vector<FixtureTensor> derived_tensors(const std::string& config) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(config, diags);
  const Result<std::vector<CheckpointTensor>> derived = checkpoint_tensors(*a);
  std::vector<FixtureTensor> out;
  for (const CheckpointTensor& t : *derived) {
    out.push_back({t.name, t.dtype, t.shape, t.bytes.value()});
  }
  return out;
}

std::string weights_fact(const std::string& dir, std::string* errors) {
  const std::string text =
      "hardware: {gpu: h200, count: 1}\nengine: {name: sglang, version: "
      "0.5.9}\nmodel: " +
      dir + "\n";
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("w.yaml", text, test_catalogs().gpus, diags);
  std::unique_ptr<PlannedStartup> p = find_engine("sglang")->plan(
      *s, PlanInputs{test_catalogs().gpus, test_catalogs().models}, diags);
  *errors = diags.to_string();
  if (!p) return "";
  for (const Fact& f : p->facts()) {
    if (f.id == "weights_source") return std::get<std::string>(f.value);
  }
  return "";
}

TEST(WeightsSource, SafetensorsHeadersThatAgreeWithTheConfig) {
  const std::string config = public_config_dir("Qwen--Qwen2.5-0.5B-Instruct") + "/config.json";
  std::string errors;
  EXPECT_EQ(weights_fact(config, &errors), "config.json arithmetic");
  EXPECT_EQ(errors, "");
  const std::vector<FixtureTensor> tensors = derived_tensors(config);
  ASSERT_EQ(tensors.size(), 290u);
  EXPECT_EQ(weights_fact(checkpoint_dir("weights_source_agree", tensors), &errors),
            "safetensors headers (290 tensors in 1 file, as config.json derives them)");
  EXPECT_EQ(errors, "");
}

TEST(WeightsSource, HeadersThatDisagreeAreAnError) {
  const std::string config = public_config_dir("Qwen--Qwen2.5-0.5B-Instruct") + "/config.json";
  std::vector<FixtureTensor> tensors = derived_tensors(config);
  // In name order: model.embed_tokens.weight, model.layers.0.input_layernorm.weight, ...
  tensors[1].dtype = "F32";
  tensors.erase(tensors.begin() + 4);  // model.layers.0.mlp.up_proj.weight
  tensors.push_back({"model.layers.0.self_attn.rotary_emb.inv_freq", "F32", {32}, 128});
  const std::string dir = checkpoint_dir("weights_source_disagree", tensors);
  std::string errors;
  EXPECT_EQ(weights_fact(dir, &errors), "");
  EXPECT_EQ(errors, "w.yaml:3:8: " + dir +
                        ": the checkpoint's safetensors headers do not declare the tensors gpumem "
                        "derives from its config.json:\n"
                        "  model.layers.0.input_layernorm.weight: the checkpoint has F32 [896], "
                        "config.json gives BF16 [896]\n"
                        "  model.layers.0.mlp.up_proj.weight: derived from config.json only\n"
                        "  model.layers.0.self_attn.rotary_emb.inv_freq: in the checkpoint only\n");
}

}  // namespace
}  // namespace gpumem
