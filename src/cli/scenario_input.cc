#include "cli/scenario_input.h"

#include "cli/release_option.h"
#include "launch/launch_command.h"

namespace gpumem::cli {

void add_scenario_input(CLI::App& app, ScenarioInput& input) {
  app.add_option("scenario", input.file, "scenario YAML file (or a launch command after --)");
  app.add_option("--gpu", input.launch.gpu,
                 "the GPU type, with a count as h100x2; with a scenario file it replaces the "
                 "file's GPU");
  add_engine_version_option(
      app, input.launch.engine_version,
      "the engine release a launch command runs (default: the newest modelled)");
}

std::optional<Scenario> load_scenario_input(const Workspace& ws, const ScenarioInput& input,
                                            const GlobalOptions& global, Diagnostics& diags) {
  if (!global.launch.empty()) {
    if (!input.file.empty()) {
      diags.error({}, "give a scenario file or a launch command after --, not both");
      return std::nullopt;
    }
    std::optional<EngineLaunch> command = read_launch_command(global.launch, diags);
    if (!command) return std::nullopt;
    return scenario_from_launch(*command, input.launch, ws.gpus, ws.models, diags);
  }
  if (input.file.empty()) {
    diags.error({},
                "give a scenario file, or a launch command after -- (e.g. gpumem simulate "
                "--gpu h100x2 -- vllm serve Qwen/Qwen3-32B -tp 2)");
    return std::nullopt;
  }
  if (!input.launch.engine_version.empty()) {
    diags.error({},
                "--engine-version goes with a launch command; a scenario file names its "
                "engine's version itself");
    return std::nullopt;
  }
  std::optional<Scenario> s = load_scenario(input.file, ws.gpus, diags);
  if (!s || !diags.empty()) return std::nullopt;
  if (!input.launch.gpu.empty()) {
    const std::optional<GpuCount> choice = parse_gpu_option(input.launch.gpu, ws.gpus, diags);
    if (!choice) return std::nullopt;
    s->hardware.gpu = choice->gpu;
    if (choice->count > 0) s->hardware.gpus_per_node = choice->count;
  }
  return s;
}

std::string launch_text(const GlobalOptions& global) {
  std::string out;
  for (const std::string& t : global.launch) out += (out.empty() ? "" : " ") + t;
  return out;
}

}  // namespace gpumem::cli
