// Which model a start-up ran where its log names no catalog model: inferred from its figures
// (a log that names none) or from its checkpoint's name (a quantized export of a catalog
// model), each candidate judged by a replay of the log's launch with it, from scratch.
//
// The replays are explain's own (explanation.cc), passed in as `TrialReplay`; what this file
// holds is which candidates are worth one and which replay is taken: a model whose replay
// prints the log's weights and bytes per KV token, alone or alike to the byte with every other
// that does (explain/model_from_figures.h); a quantized reading of the base model whose replay
// prints the logged weights, or the name's most common export where the log prints none.
#ifndef GPUMEM_EXPLAIN_MODEL_INFERENCE_H_
#define GPUMEM_EXPLAIN_MODEL_INFERENCE_H_

#include <functional>
#include <optional>
#include <string>

#include "catalog/model_catalog.h"
#include "explain/explanation.h"

namespace gpumem {

// A from-scratch replay of the start-up with `overrides` (its model among them) over `ctx`.
using TrialReplay =
    std::function<RunExplanation(const ExplainOverrides& overrides, const ExplainContext& ctx)>;

// Bytes one KV token takes on `g` (SGLang's cell size; vLLM's KV memory over its tokens).
std::optional<double> bytes_per_token(const GpuLedger& g, LogEngine engine);

// Names the model of `s` (whose log names none) where one model of the catalog or the bundled
// configs alone prints the log's figures; else says in its note why none is taken.
void identify_model(ImpliedScenario& s, const LogRun& run, LogEngine engine,
                    const ExplainOverrides& overrides, const ExplainContext& ctx,
                    const TrialReplay& trial);

// The model `s` names but the catalog lacks, read as a catalog model quantized as the name says
// (catalog/quantization_by_name.h): the catalog in which that name resolves to the reading, and
// the note that says so; no catalog, and a note that says why, where the log's weights
// contradict every reading; nullopt where the name states no quantization of a catalog model or
// no reading could be replayed.
struct QuantizedReading {
  std::optional<ModelCatalog> models;
  std::string note;
};
std::optional<QuantizedReading> read_quantized_variant(const ImpliedScenario& s, const LogRun& run,
                                                       LogEngine engine,
                                                       const ExplainOverrides& overrides,
                                                       const ExplainContext& ctx,
                                                       const TrialReplay& trial);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_MODEL_INFERENCE_H_
