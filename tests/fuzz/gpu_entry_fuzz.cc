// libFuzzer target: the GPU catalog entry reader (model/gpu/*.yaml, catalog/gpu_catalog.h).
// An entry is returned exactly when there is no error, and every error names the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "catalog/gpu_catalog.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  static const std::string kFile = "model/gpu/fuzz.yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);
  Diagnostics diags;
  const std::optional<GpuSpec> gpu = parse_gpu_entry(kFile, text, diags);
  fuzz::require(gpu.has_value() == diags.empty(), "an entry comes back exactly without errors",
                diags.to_string());
  fuzz::require_located(diags, kFile);
  if (gpu) {
    fuzz::require(gpu->memory_total.value() >= 0 && gpu->sm_count > 0,
                  "a read GPU has a size and SMs");
  }
  return 0;
}
