// A published bfloat16 config (support/model_configs.h) with a quantization block added,
// as a quantizer's export writes it: what the quantization tests derive their bytes from
// where no quantized checkpoint's config is at hand.
#ifndef GPUMEM_TESTS_SUPPORT_QUANTIZED_CONFIG_H_
#define GPUMEM_TESTS_SUPPORT_QUANTIZED_CONFIG_H_

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "catalog/architecture.h"
#include "catalog/yaml_reader.h"
#include "support/model_configs.h"

namespace gpumem {

inline std::string config_path(const std::string& repo) {
  return public_config_dir(repo) + "/config.json";
}

// The config.json text of `repo` with `quantization` (JSON; none when empty) as its
// quantization_config.
inline std::string quantized_config_text(const std::string& repo, const std::string& quantization) {
  std::ifstream in(config_path(repo));
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  EXPECT_NE(json.find('{'), std::string::npos) << config_path(repo);
  if (!quantization.empty() && json.find('{') != std::string::npos) {
    json.insert(json.find('{') + 1, "\"quantization_config\": " + quantization + ",\n");
  }
  return json;
}

// ... read as an Architecture (a refused config fails the test).
inline Architecture quantized_config(const std::string& repo, const std::string& quantization) {
  Result<YamlDocument> doc =
      parse_yaml(config_path(repo), quantized_config_text(repo, quantization));
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  if (!doc.ok()) return {};
  Diagnostics diags;
  Result<Architecture> a = parse_hf_config(config_path(repo), doc->root, repo, diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_QUANTIZED_CONFIG_H_
