// Where a command's scenario comes from: a scenario file, or a launch command after `--`
// (`gpumem simulate --gpu h100x2 -- vllm serve Qwen/Qwen3-32B -tp 2`), with --gpu naming the
// GPUs and --engine-version pinning a release. With a scenario file, --gpu replaces its GPU
// type (and its count, when one is given).
#ifndef GPUMEM_CLI_SCENARIO_INPUT_H_
#define GPUMEM_CLI_SCENARIO_INPUT_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "catalog/scenario.h"
#include "cli/command.h"
#include "cli/workspace.h"
#include "core/diagnostics.h"
#include "launch/launch_scenario.h"

namespace gpumem::cli {

struct ScenarioInput {
  std::string file;
  LaunchOptions launch;
};

// The positional scenario file (optional: a launch command may stand for it), --gpu and
// --engine-version.
void add_scenario_input(CLI::App& app, ScenarioInput& input);

// The scenario, or nullopt with the reasons in `diags`.
std::optional<Scenario> load_scenario_input(const Workspace& ws, const ScenarioInput& input,
                                            const GlobalOptions& global, Diagnostics& diags);

// The launch command's text when the scenario came from one ("" otherwise), for reports.
std::string launch_text(const GlobalOptions& global);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_SCENARIO_INPUT_H_
