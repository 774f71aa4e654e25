// Where a public checkpoint's files (config.json, SOURCE.md, its published sizes) are kept:
// model/llm/configs/<org>--<name> for the configs gpumem bundles (catalog/model_catalog.h),
// tests/data/model-configs/<org>--<name> for the partial copies and published sizes kept as
// test data only.
#ifndef GPUMEM_TESTS_SUPPORT_MODEL_CONFIGS_H_
#define GPUMEM_TESTS_SUPPORT_MODEL_CONFIGS_H_

#include <filesystem>
#include <string>

namespace gpumem {

inline std::string public_config_dir(const std::string& folder) {
  const std::string bundled = GPUMEM_SOURCE_DIR "/model/llm/configs/" + folder;
  if (std::filesystem::is_directory(bundled)) return bundled;
  return GPUMEM_SOURCE_DIR "/tests/data/model-configs/" + folder;
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_MODEL_CONFIGS_H_
