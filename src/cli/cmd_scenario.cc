// `gpumem scenario [--gpu h100x2] -- vllm serve MODEL ...`: writes the scenario a launch
// command implies as a YAML file (scenarios/README.md), commented with where each value came
// from, to edit and simulate (`gpumem simulate FILE`).
#include <cstdio>

#include "cli/command.h"
#include "cli/output_guard.h"
#include "cli/release_option.h"
#include "cli/scenario_input.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "engine/validate.h"
#include "launch/launch_command.h"
#include "launch/launch_scenario.h"

namespace gpumem::cli {

Command scenario_command() {
  return {"scenario", "write the scenario a launch command implies (after --) as YAML",
          [](CLI::App& app, const GlobalOptions& global) {
            struct Options {
              bool download = false;
              LaunchOptions launch;
              std::string output;
            };
            auto o = std::make_shared<Options>();
            add_download_flag(app, o->download);
            app.add_option("--gpu", o->launch.gpu, "the GPU type, with a count as h100x2");
            add_engine_version_option(app, o->launch.engine_version,
                                      "the engine release (default: the newest modelled)");
            app.add_option("-o,--output", o->output, "write to this file instead of stdout");
            return [o, &global]() -> ExitCode {
              Diagnostics diags;
              if (global.launch.empty()) {
                diags.error({},
                            "give the launch command after --, e.g. gpumem scenario --gpu "
                            "h100x2 -- vllm serve Qwen/Qwen3-32B -tp 2");
                return report_diagnostics(diags);
              }
              if (!output_allowed("-o", o->output, {}, diags)) return report_diagnostics(diags);
              std::optional<Workspace> ws = open_workspace(global, diags, o->download);
              if (!ws) return report_diagnostics(diags);
              std::optional<EngineLaunch> command = read_launch_command(global.launch, diags);
              if (!command) return report_diagnostics(diags);
              std::optional<Scenario> s =
                  scenario_from_launch(*command, o->launch, ws->gpus, ws->models, diags);
              if (!s) return report_diagnostics(diags);
              // What simulate would refuse (a mistyped flag, a TP size the heads do not
              // divide) is refused here too, rather than written into a scenario.
              validate_engine(*s, ws->gpus, ws->models, diags);
              if (!diags.empty()) return report_diagnostics(diags);
              const std::string yaml = launch_scenario_yaml(*s, *command);
              if (o->output.empty()) {
                std::fputs(yaml.c_str(), stdout);
              } else if (Status w = write_file_atomically(o->output, yaml); !w.ok()) {
                std::fprintf(stderr, "%s\n", w.message().c_str());
                return kExitBadInput;
              }
              return kExitOk;
            };
          }};
}

}  // namespace gpumem::cli
