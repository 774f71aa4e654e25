// Parses a config.json text (as file "t.json") that must be refused and returns the
// diagnostics' text, checking that the Result carries the same message.
#ifndef GPUMEM_TESTS_SUPPORT_CONFIG_ERRORS_H_
#define GPUMEM_TESTS_SUPPORT_CONFIG_ERRORS_H_

#include <gtest/gtest.h>

#include <string>

#include "catalog/architecture.h"
#include "catalog/yaml_reader.h"

namespace gpumem {

// A small Llama config (7 lines) that a test appends a refused key to; its next line is 8.
inline constexpr const char* kSmallLlamaConfig =
    "architectures: [LlamaForCausalLM]\n"
    "hidden_size: 4096\n"
    "num_hidden_layers: 2\n"
    "num_attention_heads: 32\n"
    "intermediate_size: 11008\n"
    "vocab_size: 32000\n"
    "max_position_embeddings: 4096\n";

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
