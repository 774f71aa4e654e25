// What SGLang refuses, or gpumem does not model, for a plan whose flags, model and release
// are known: quantized checkpoints' kernels, flags with an unmodelled memory effect, what an
// older release did that no source read states, DeepSeek DSA's and Llama 4's constraints. Each
// check reports every problem it finds by name (file:line:col) and returns whether there was none;
// make_plan (plan.h) stops after a failed one.
#ifndef GPUMEM_ENGINE_SGLANG_PLAN_CHECKS_H_
#define GPUMEM_ENGINE_SGLANG_PLAN_CHECKS_H_

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/sglang/plan.h"

namespace gpumem::sglang {

bool check_quantized_kernels(const Plan& p, const Scenario& scenario, Diagnostics& diags);
bool check_unmodelled_flags(const ServerFlags& f, const Architecture& model, Diagnostics& diags);
bool check_release_features(const Plan& p, const ScenarioEngine& engine, Diagnostics& diags);
bool check_sparse_attention(const Plan& p, const Scenario& scenario, Diagnostics& diags);
// Llama 4: the attention backends SGLang accepts, its default before 0.5.6 and the vision
// tower that --enable-multimodal would build.
bool check_llama4(const Plan& p, const ScenarioEngine& engine, Diagnostics& diags);
// --cpu-offload-gb: the model files that build their layers through make_layers (where the
// offloader acts), without quantization or a draft model.
bool check_cpu_offload(const Plan& p, Diagnostics& diags);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_PLAN_CHECKS_H_
