// The model a scenario runs: `model:`, or the engine's own model flag, and both together.
#include "engine/model_resolution.h"

#include <gtest/gtest.h>

#include "engine/engine_model.h"
#include "support/test_catalogs.h"

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

