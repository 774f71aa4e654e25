// libFuzzer target: the Hugging Face config.json reader (catalog/architecture.h
// parse_hf_config) on arbitrary text, parsed as YAML/JSON first as load_hf_config does. An
// architecture is returned exactly when there is no error, every error names the file, and a
// returned architecture keeps the invariants architecture.h states.
#include <cstddef>
#include <cstdint>
#include <string>

#include "catalog/architecture.h"
#include "catalog/yaml_reader.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  static const std::string kFile = "fuzz/config.json";
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Result<YamlDocument> doc = parse_yaml(kFile, text);
  if (!doc.ok()) {
    fuzz::require(doc.status().message().starts_with(kFile + ":"), "a syntax error names the file",
                  doc.status().message());
    return 0;
  }
  Diagnostics diags;
  const Result<Architecture> a = parse_hf_config(kFile, doc->root, kFile, diags);
  fuzz::require(a.ok() == diags.empty(), "an architecture comes back exactly without errors",
                diags.to_string());
  fuzz::require_located(diags, kFile);
  if (a.ok()) fuzz::require_valid_architecture(*a);
  return 0;
}
