// Which model a start-up ran when its log names none, from the figures it prints.
//
// Users often paste the memory lines of a start-up without the command that launched it. Those
// lines still describe the model closely: the bytes its weights took on one GPU (SGLang's
// "Load weight end. type=..., mem usage", vLLM's "Model loading took"), the bytes one KV token
// takes (SGLang's K and V sizes over its token count, vLLM's KV memory over its tokens), and the
// model class where printed (SGLang's "type=", vLLM's "Resolved architecture:"). A model of the
// catalog or of the bundled configs is taken for the log's when the replay of the same launch with
// it prints the same weights and the same bytes per KV token, and no other model does; several that
// fit are named for the user to choose with --model, and none is taken without both figures (or the
// weights and the class).
//
// This file holds the evidence and the tests; the replays are explain's (explanation.cc), which
// runs one from scratch per model that survives the cheap filters below.
#ifndef GPUMEM_EXPLAIN_MODEL_FROM_FIGURES_H_
#define GPUMEM_EXPLAIN_MODEL_FROM_FIGURES_H_

#include <optional>
#include <string>
#include <vector>

#include "catalog/model_catalog.h"
#include "explain/startup_log.h"

namespace gpumem {

struct ModelEvidence {
  Observation weights;       // the first GPU's weights figure, in GiB
  std::string architecture;  // SGLang's "type=", vLLM's "Resolved architecture:" (or empty)
  // Bytes one KV token takes on that GPU, as the log's figures give it, and how far the print
  // rounding lets it stray.
  std::optional<double> kv_bytes_per_token;
  double kv_bytes_rounding = 0;

  // Enough to tell models apart: the weights and the KV token, or the weights and the class.
  bool sufficient() const { return kv_bytes_per_token.has_value() || !architecture.empty(); }
};

// The first GPU's figures, wherever it prints its weights (sufficient() or not).
std::optional<ModelEvidence> model_evidence(const LogRun& run, LogEngine engine);

// The catalog slugs and bundled repository ids whose class is the logged one and whose
// checkpoint, split over `weight_shards` GPUs (TP x PP), is within a quarter of the logged
// weights: the models worth a replay. Models that cannot be read are left out.
std::vector<std::string> size_candidates(const ModelEvidence& e, int weight_shards,
                                         const ModelCatalog& models);

// Whether a replay's figures are the log's: its weights within 4 % (an engine's own tensors,
// vocabulary padding and the print's rounding beside the checkpoint's) and, where both are
// known, its bytes per KV token within 1.5 % (page padding) plus the print's rounding.
bool figures_agree(const ModelEvidence& e, double predicted_weights_gib,
                   std::optional<double> predicted_kv_bytes_per_token);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_MODEL_FROM_FIGURES_H_
