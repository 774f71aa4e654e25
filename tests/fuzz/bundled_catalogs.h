// The repository's GPU and model catalogs, loaded once per fuzz process: the targets that
// read scenarios, logs or launch commands resolve GPUs and models against what users get.
#ifndef GPUMEM_TESTS_FUZZ_BUNDLED_CATALOGS_H_
#define GPUMEM_TESTS_FUZZ_BUNDLED_CATALOGS_H_

#include <utility>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "tests/fuzz/fuzz_checks.h"

namespace gpumem::fuzz {

struct Catalogs {
  GpuCatalog gpus;
  ModelCatalog models;
};

inline const Catalogs& bundled_catalogs() {
  static const Catalogs c = [] {
    Diagnostics diags;
    Result<GpuCatalog> gpus = GpuCatalog::load(GPUMEM_SOURCE_DIR "/model/gpu", diags);
    Result<ModelCatalog> models = ModelCatalog::open(GPUMEM_SOURCE_DIR "/model/llm");
    require(gpus.ok() && models.ok() && diags.empty(), "the bundled catalogs load",
            diags.to_string());
    return Catalogs{std::move(*gpus), std::move(*models)};
  }();
  return c;
}

}  // namespace gpumem::fuzz

#endif  // GPUMEM_TESTS_FUZZ_BUNDLED_CATALOGS_H_
