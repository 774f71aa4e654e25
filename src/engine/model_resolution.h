// Finding the architecture a scenario names: a catalog slug, or a Hugging Face config.json
// (a file, or a directory holding one). Problems are reported at the scenario's location.
#ifndef GPUMEM_ENGINE_MODEL_RESOLUTION_H_
#define GPUMEM_ENGINE_MODEL_RESOLUTION_H_

#include <optional>
#include <string>

#include "catalog/architecture.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"

namespace gpumem {

std::optional<Architecture> resolve_model(const ScenarioModel& model, const ModelCatalog& catalog,
                                          Diagnostics& diags);

// `reference` as an engine flag gives it (--speculative-draft-model-path): a catalog slug,
// or a path (absolute, or relative to `relative_to`'s directory) to a config.json or to a
// directory holding one.
std::optional<Architecture> resolve_model_reference(const std::string& reference,
                                                    const SourceLoc& where,
                                                    const std::string& relative_to,
                                                    const ModelCatalog& catalog,
                                                    Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_MODEL_RESOLUTION_H_
