// libFuzzer target: the scenario loader with the bundled catalogs, the way `gpumem simulate`
// runs it — read and check the scenario (catalog/scenario.h), resolve the engine's plan
// (engine/validate.h), and for a valid scenario simulate it and render the ledger as a table,
// as Markdown and as JSON. Every error names a file (the scenario, or a model file it
// points to), and a scenario that validates must simulate without new errors. The fit
// advice (engine/fit_advice.h) is left out: it re-simulates a scenario up to hundreds of
// times, which would cut the inputs tried per second by as much.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "engine/validate.h"
#include "report/render.h"
#include "runtime/ledger_json.h"
#include "simulate/simulate.h"
#include "tests/fuzz/bundled_catalogs.h"
#include "tests/fuzz/fuzz_checks.h"

namespace gpumem {
namespace {

// The text before the first ':' is a file or directory that exists: errors about a model
// name the catalog entry or the config.json they come from.
void require_named_file(const Diagnostics& diags, const std::string& scenario_file) {
  for (const Diagnostic& d : diags.errors()) {
    const std::string text = d.to_string();
    if (text.starts_with(scenario_file + ":")) continue;
    std::error_code ec;
    const size_t colon = text.find(':');
    fuzz::require(colon != std::string::npos && colon > 0 &&
                      std::filesystem::exists(text.substr(0, colon), ec),
                  "an error starts with the file it is about", text);
  }
}

}  // namespace
}  // namespace gpumem

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  // In scenarios/, so that relative hf_config paths resolve as for the bundled scenarios.
  static const std::string kFile = GPUMEM_SOURCE_DIR "/scenarios/fuzz.yaml";
  const fuzz::Catalogs& catalogs = fuzz::bundled_catalogs();
  const std::string text(reinterpret_cast<const char*>(data), size);
  Diagnostics diags;
  const std::optional<Scenario> scenario = parse_scenario(kFile, text, catalogs.gpus, diags);
  require_named_file(diags, kFile);
  if (!scenario || !diags.empty()) return 0;
  validate_engine(*scenario, catalogs.gpus, catalogs.models, diags);
  require_named_file(diags, kFile);
  if (!diags.empty()) return 0;
  const SimulationInputs inputs{catalogs.gpus, catalogs.models, SimulationConstants{}};
  const std::optional<Ledger> ledger = simulate_scenario(*scenario, inputs, diags);
  fuzz::require(ledger.has_value() && diags.empty(), "a valid scenario simulates",
                diags.to_string());
  fuzz::require(!render_table(*ledger).empty() && !render_markdown(*ledger).empty() &&
                    !ledger_to_json(*ledger).empty(),
                "a ledger renders");
  return 0;
}
