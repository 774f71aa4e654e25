// Which model a logged start-up ran, as a scenario names it: the name the log prints (a
// launch command's --model-path, vLLM's engine config, SGLang's server_args) or, where that is
// a path that names no checkpoint, the name it is served under; matched to a catalog slug by
// its Hugging Face id, an alias, a bundled config, the local Hugging Face cache, or the last
// path component (a local copy keeps the repository's name; ModelScope writes '.' as '___').
// A name that only extends an entry's ("Kimi-K2-Instruct-0905") is not taken for it: the note
// names the entry for the user to confirm with --model.
#ifndef GPUMEM_EXPLAIN_MODEL_CHOICE_H_
#define GPUMEM_EXPLAIN_MODEL_CHOICE_H_

#include "catalog/model_catalog.h"
#include "explain/implied_scenario.h"
#include "explain/startup_log.h"

namespace gpumem {

struct ModelChoice {
  Sourced model;  // a catalog slug or repository id when resolved, else the name as logged
  bool resolved = false;
};

ModelChoice choose_model(const LogRun& run, const ModelCatalog& models);

// The catalog entry or bundled config whose repository name `logged` extends by '-' words
// ("Kimi-K2-Instruct-0905", "Qwen2.5-72B-Instruct-GPTQ-Int4"): its slug or repository id
// (value) and the id matched (note); the longest such name.
std::optional<Sourced> variant_of(const std::string& logged, const ModelCatalog& models);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_MODEL_CHOICE_H_
