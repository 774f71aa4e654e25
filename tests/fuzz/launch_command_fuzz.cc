// libFuzzer target: the launch-command reader (launch/launch_command.h) on arbitrary argv —
// the input split at NUL bytes into words, as a shell hands them over after gpumem's `--` —
// then the scenario it implies on eight H200s (launch/launch_scenario.h) and the YAML that
// `gpumem scenario -- ...` writes for it, read back as `gpumem simulate` reads a file.
// The simulation is left out: the scenario target fuzzes it.
//
// Promises checked: an error about the command points into it (`<launch command>:1:COL`
// with COL inside the command as joined); the written scenario is YAML that reads back with
// no error, as the same engine, GPU count and model (text from the command cannot break its
// structure); shell_command quotes every word so that it stays one word.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "launch/launch_command.h"
#include "launch/launch_scenario.h"
#include "tests/fuzz/bundled_catalogs.h"
#include "tests/fuzz/fuzz_checks.h"

namespace gpumem {
namespace {

std::vector<std::string> split_at_nul(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      words.emplace_back();
    } else {
      words.back() += static_cast<char>(data[i]);
    }
  }
  return words;
}

// Errors located in the command name a column inside it (one past its end for "missing").
void require_inside_command(const Diagnostics& diags, std::size_t length) {
  const std::string prefix = std::string(kLaunchCommandFile) + ":";
  for (const Diagnostic& d : diags.errors()) {
    if (d.loc.file != kLaunchCommandFile) continue;
    fuzz::require(d.loc.line == 1 && d.loc.column >= 1 &&
                      static_cast<std::size_t>(d.loc.column) <= length + 1,
                  "an error about the command points into it", d.to_string());
  }
}

}  // namespace
}  // namespace gpumem

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  const fuzz::Catalogs& catalogs = fuzz::bundled_catalogs();
  const std::vector<std::string> argv = split_at_nul(data, size);
  fuzz::require(!shell_command(argv).empty(), "a command line is written for any argv");
  Diagnostics diags;
  const std::optional<EngineLaunch> command = read_launch_command(argv, diags);
  std::size_t length = 0;
  for (const std::string& w : argv) length += w.size() + 1;
  require_inside_command(diags, length);
  if (!command) return 0;
  Diagnostics scenario_diags;
  const std::optional<Scenario> scenario = scenario_from_launch(
      *command, {"h200x8", ""}, catalogs.gpus, catalogs.models, scenario_diags);
  require_inside_command(scenario_diags, command->text.size());
  if (!scenario) return 0;
  const std::string yaml = launch_scenario_yaml(*scenario, *command);
  Diagnostics read_back_diags;
  const std::optional<Scenario> read_back =
      parse_scenario("fuzz.yaml", yaml, catalogs.gpus, read_back_diags);
  fuzz::require(read_back.has_value() && read_back_diags.empty(), "the written scenario reads back",
                yaml + read_back_diags.to_string());
  fuzz::require(read_back->engine.name == scenario->engine.name &&
                    read_back->total_gpus() == scenario->total_gpus() &&
                    read_back->hardware.gpu == scenario->hardware.gpu,
                "the written scenario is the same scenario", yaml);
  return 0;
}
