// Parses a config.json text (as file "t.json") that must be refused and returns the
// diagnostics' text, checking that the Result carries the same message.
#ifndef GPUMEM_TESTS_SUPPORT_CONFIG_ERRORS_H_
#define GPUMEM_TESTS_SUPPORT_CONFIG_ERRORS_H_

#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/yaml_reader.h"

namespace gpumem {

inline std::string config_errors(const std::string& text) {
  Result<YamlDocument> doc = parse_yaml("t.json", text);
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  if (!doc.ok()) return "";
  Diagnostics diags;
  Result<Architecture> a = parse_hf_config("t.json", doc->root, "t", diags);
  EXPECT_FALSE(a.ok());
  if (!a.ok()) {
    EXPECT_EQ(a.status().message() + "\n", diags.to_string());
  }
  return diags.to_string();
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_CONFIG_ERRORS_H_
