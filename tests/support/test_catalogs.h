// The bundled catalogs (model/gpu, model/llm), loaded once for all tests that simulate.
#ifndef GPUMEM_TESTS_SUPPORT_TEST_CATALOGS_H_
#define GPUMEM_TESTS_SUPPORT_TEST_CATALOGS_H_

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"

namespace gpumem {

struct TestCatalogs {
  GpuCatalog gpus;
  ModelCatalog models;
};

inline const TestCatalogs& test_catalogs() {
  static const TestCatalogs c = [] {
    Diagnostics diags;
    return TestCatalogs{*GpuCatalog::load(GPUMEM_SOURCE_DIR "/model/gpu", diags),
                        *ModelCatalog::open(GPUMEM_SOURCE_DIR "/model/llm")};
  }();
  return c;
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_TEST_CATALOGS_H_
