// `gpumem plot SCENARIO -o FILE.svg|png`: the memory map of a start-up — one stacked bar per
// GPU coloured by category, the capacity line, and where it ran out of memory — drawn by
// gnuplot. Exit code 1 when the start-up does not fit (the picture is still written).
#include <cstdio>

#include "cli/command.h"
#include "cli/output_guard.h"
#include "cli/scenario_input.h"
#include "cli/simulated_scenario.h"
#include "cli/workspace.h"
#include "picture/gnuplot.h"
#include "picture/memory_map.h"

namespace gpumem::cli {

Command plot_command() {
  return {
      "plot", "draw a scenario's memory map per GPU (SVG or PNG, with gnuplot)",
      [](CLI::App& app, const GlobalOptions& global) {
        struct Options {
          bool download = false;
          ScenarioInput input;
          std::string output;
          std::string calibration;
        };
        auto o = std::make_shared<Options>();
        add_download_flag(app, o->download);
        add_scenario_input(app, o->input);
        app.add_option("-o,--output", o->output, "the picture: FILE.svg or FILE.png")->required();
        app.add_option("--calibration", o->calibration,
                       "calibration entry (default: the one matching the GPU)");
        return [o, &global]() -> ExitCode {
          Diagnostics diags;
          if (!output_allowed("-o", o->output, {o->input.file}, diags)) {
            return report_diagnostics(diags);
          }
          if (Result<PictureFormat> f = picture_format_for(o->output); !f.ok()) {
            diags.error({}, "-o " + f.status().message());
            return report_diagnostics(diags);
          }
          std::optional<Workspace> ws = open_workspace(global, diags, o->download);
          if (!ws) return report_diagnostics(diags);
          std::optional<Scenario> scenario = load_scenario_input(*ws, o->input, global, diags);
          if (!scenario) return report_diagnostics(diags);
          std::optional<SimulatedScenario> sim =
              simulate_loaded(*ws, std::move(*scenario), o->calibration, diags);
          if (!sim) return report_diagnostics(diags);
          if (Status drawn = draw_memory_map(memory_map(sim->ledger), o->output); !drawn.ok()) {
            std::fprintf(stderr, "%s\n", drawn.message().c_str());
            return drawn.code() == StatusCode::kInternal ? kExitInternal : kExitBadInput;
          }
          return sim->ledger.fits() ? kExitOk : kExitDoesNotFit;
        };
      }};
}

}  // namespace gpumem::cli
