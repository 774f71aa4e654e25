// Finding the models a scenario names: the model it runs (`model:`, or the engine's own model
// flag) and drafts named by speculative-decoding flags. Each reference resolves through the
// model catalog (catalog/model_reference.h: a slug, a repository id, the Hugging Face cache,
// a path); problems are reported at the reference's location.
#ifndef GPUMEM_ENGINE_MODEL_RESOLUTION_H_
#define GPUMEM_ENGINE_MODEL_RESOLUTION_H_

#include <optional>
#include <string>
#include <string_view>

#include "catalog/model_catalog.h"
#include "catalog/model_reference.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/flag_table.h"

namespace gpumem {

// The model of `scenario`: its `model:`, else the engine flag `model_flag` (SGLang
// --model-path, vLLM --model), which is a model reference too. Both given must name the same
// model (the same catalog entry or config.json); otherwise the flag's location gets the error.
std::optional<ResolvedModel> resolve_scenario_model(const Scenario& scenario,
                                                    const FlagValues& flags,
                                                    std::string_view model_flag,
                                                    const ModelCatalog& catalog,
                                                    Diagnostics& diags);

// `reference` as an engine flag gives it (--speculative-draft-model-path): a catalog slug, a
// repository id, or a path (absolute, or relative to `relative_to`'s directory) to a
// config.json or to a directory holding one.
std::optional<ResolvedModel> resolve_model_reference(const std::string& reference,
                                                     const SourceLoc& where,
                                                     const std::string& relative_to,
                                                     const ModelCatalog& catalog,
                                                     Diagnostics& diags);

// Where the weights of `model` come from, as the `weights_source` fact says it: its
// safetensors headers when the checkpoint is at hand and declares exactly the tensors
// config.json derives (weights/checkpoint_check.h; a difference is an error at `where`,
// listing the first tensors that differ), otherwise config.json arithmetic. nullopt after an
// error.
std::optional<std::string> weights_source(const ResolvedModel& model, const SourceLoc& where,
                                          Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_MODEL_RESOLUTION_H_
