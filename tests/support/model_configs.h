// Where a public checkpoint's files (config.json, SOURCE.md, its published sizes) are kept:
// model/llm/configs/<org>--<name> for the configs gpumem bundles (catalog/model_catalog.h),
// tests/data/model-configs/<org>--<name> for the partial copies and published sizes kept as
// test data only.
#ifndef GPUMEM_TESTS_SUPPORT_MODEL_CONFIGS_H_
#define GPUMEM_TESTS_SUPPORT_MODEL_CONFIGS_H_

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/scratch_dir.h"

namespace gpumem {

inline std::string public_config_dir(const std::string& folder) {
  const std::string bundled = GPUMEM_SOURCE_DIR "/model/llm/configs/" + folder;
  if (std::filesystem::is_directory(bundled)) return bundled;
  return GPUMEM_SOURCE_DIR "/tests/data/model-configs/" + folder;
}

// `folder`'s published config.json with the first `from` replaced by `to`, written to a folder of
// the test's own under the temporary directory (gpumem-<name>); returns that folder.
inline std::string config_variant(const std::string& folder, const std::string& name,
                                  const std::string& from, const std::string& to) {
  const std::filesystem::path dir = scratch_dir() / ("gpumem-" + name);
  std::filesystem::create_directories(dir);
  std::ifstream in(public_config_dir(folder) + "/config.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string config = text.str();
  config.replace(config.find(from), from.size(), to);
  std::ofstream(dir / "config.json") << config;
  return dir.string();
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_MODEL_CONFIGS_H_
