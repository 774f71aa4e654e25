// libFuzzer target: the model catalog entry reader (model/llm/*.yaml, catalog/architecture.h),
// whose `config:` is read like a Hugging Face config.json. An entry is returned exactly when
// there is no error, every error names the file, and a returned architecture keeps the
// invariants architecture.h states.
#include <cstddef>
#include <cstdint>
#include <string>

#include "catalog/architecture.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  static const std::string kFile = "model/llm/fuzz.yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);
  Diagnostics diags;
  const Result<ModelEntry> entry = parse_model_entry(kFile, text, diags);
  fuzz::require(entry.ok() == diags.empty(), "an entry comes back exactly without errors",
                diags.to_string());
  fuzz::require_located(diags, kFile);
  if (entry.ok()) fuzz::require_valid_architecture(entry->architecture);
  return 0;
}
