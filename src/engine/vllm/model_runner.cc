#include "engine/vllm/model_runner.h"

#include <algorithm>
#include <array>

namespace gpumem::vllm {
namespace {

// vllm config/vllm.py is_hybrid: attention layers beside Mamba or Gated DeltaNet layers.
bool is_hybrid(const Architecture& m) { return m.linear_layer_count() > 0 && !m.attention_free(); }

// What of the launch Model Runner V2 does not support: the oracle's "unsupported" list
// (config/vllm.py; v0.25 to v0.28 and v0.29.0 alike: "n-gram speculative decoding"); the other
// fallbacks (DBO, custom logits processors, prefill context parallelism, KV-sharing fast
// prefill, pooling) are flags gpumem refuses already. "" when V2 runs it.
std::string unsupported_by_v2(const EngineFlags& flags) {
  if (flags.speculative && flags.speculative->method == "ngram")
    return "ngram speculative decoding";
  return "";
}

std::string_view default_text(V2RunnerDefault d) {
  switch (d) {
    case V2RunnerDefault::kQwen3Dense:
      return "the default for dense, unquantized Qwen3ForCausalLM models (v0.22)";
    case V2RunnerDefault::kListedDense:
      return "the default for dense, unquantized Llama, Mistral and Qwen3 models (v0.23)";
    case V2RunnerDefault::kListed:
      return "the default for Llama, Mistral, Qwen3, Qwen2-MoE, DeepSeek-V2 and Granite-MoE models "
             "(v0.24)";
    case V2RunnerDefault::kDense:
      return "the default for dense models and listed MoE ones (v0.25 to v0.28)";
    case V2RunnerDefault::kEverySupportedModel:
      return "the default for every model it supports (v0.29.0 on)";
    case V2RunnerDefault::kNever:
      break;
  }
  return "";
}

// The architectures whose name enrols them in V2 under `d` (vllm config/vllm.py
// DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES as the release shipped it).
bool listed_for_v2(V2RunnerDefault d, std::string_view hf_architecture) {
  // v0.22.0 (#39337); v0.23.0 adds Llama and Mistral (#43458); v0.24.0 Qwen2-MoE and
  // DeepSeek-V2 (#42667, merged 2026-06-12) and Granite-MoE (#45461, 06-16), their release by
  // merge date, UNCONFIRMED. Later additions (DeepSeek-V4 by #51768 among them) are of a
  // release UNCONFIRMED and are not listed.
  static constexpr std::array<std::string_view, 2> kFrom023 = {"LlamaForCausalLM",
                                                               "MistralForCausalLM"};
  static constexpr std::array<std::string_view, 3> kFrom024 = {
      "Qwen2MoeForCausalLM", "DeepseekV2ForCausalLM", "GraniteMoeForCausalLM"};
  const auto in = [&](const auto& list) {
    return std::find(list.begin(), list.end(), hf_architecture) != list.end();
  };
  switch (d) {
    case V2RunnerDefault::kNever:
      return false;
    case V2RunnerDefault::kQwen3Dense:
      return hf_architecture == "Qwen3ForCausalLM";
    case V2RunnerDefault::kListedDense:
      return hf_architecture == "Qwen3ForCausalLM" || in(kFrom023);
    default:
      return hf_architecture == "Qwen3ForCausalLM" || in(kFrom023) || in(kFrom024);
  }
}

}  // namespace

ModelRunnerChoice choose_model_runner(const VersionRules& rules, const Architecture& model,
                                      const EngineFlags& flags, std::optional<bool> forced) {
  ModelRunnerChoice c;
  const std::string unsupported = unsupported_by_v2(flags);
  if (forced.has_value()) {
    // vllm config/vllm.py _validate_v2_model_runner: asked for, an unsupported feature is an
    // error, not a fallback.
    if (*forced && !unsupported.empty()) {
      c.error = "ValueError: Model Runner V2 does not yet support: " + unsupported;
    }
    c.v2 = *forced;
    c.why = *forced ? "Model Runner V2: VLLM_USE_V2_MODEL_RUNNER=1"
                    : "the V1 model runner: VLLM_USE_V2_MODEL_RUNNER=0";
    return c;
  }
  const V2RunnerDefault d = rules.v2_runner_default;
  const bool moe = model.moe.num_experts > 0;
  const bool quantized =
      model.quantization.method != QuantMethod::kNone || flags.quantization.has_value();
  const bool listed = listed_for_v2(d, model.hf_architecture);
  bool enrolled = false;
  switch (d) {
    case V2RunnerDefault::kNever:
      break;
    case V2RunnerDefault::kQwen3Dense:
    case V2RunnerDefault::kListedDense:
      enrolled = listed && !moe && !quantized;
      break;
    case V2RunnerDefault::kListed:
      enrolled = listed;
      break;
    case V2RunnerDefault::kDense:
      // config/vllm.py _is_default_v2_model_runner_model (v0.25 to v0.28).
      enrolled = !(is_hybrid(model) && !listed) && !model.attention_free() && (listed || !moe);
      break;
    case V2RunnerDefault::kEverySupportedModel:
      enrolled = true;
      break;
  }
  if (!enrolled) {
    c.why = d == V2RunnerDefault::kNever
                ? "the V1 model runner"
                : "the V1 model runner: Model Runner V2 is " + std::string(default_text(d)) +
                      ", which " + model.hf_architecture + " is not";
    return c;
  }
  if (!unsupported.empty()) {
    c.why = "the V1 model runner: Model Runner V2 does not yet support " + unsupported;
    // config/vllm.py use_v2_model_runner (PR #53183, v0.29.0).
    if (d == V2RunnerDefault::kEverySupportedModel) {
      c.warning = "Model Runner V2 does not yet support " + unsupported +
                  "; using the V1 model runner instead.";
    }
    return c;
  }
  c.v2 = true;
  c.why = "Model Runner V2: " + std::string(default_text(d));
  return c;
}

}  // namespace gpumem::vllm
