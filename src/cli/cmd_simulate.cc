// `gpumem simulate SCENARIO`: the per-GPU ledger of one start-up, as a table, Markdown,
// JSON, or a Chrome trace (Perfetto UI, chrome://tracing); exit code 1 when it does not fit.
#include <cstdio>

#include "cli/command.h"
#include "cli/output_guard.h"
#include "cli/simulated_scenario.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "picture/timeline.h"
#include "report/render.h"
#include "runtime/ledger_json.h"
#include "simulate/fit_advice.h"

namespace gpumem::cli {

Command simulate_command() {
  return {"simulate", "simulate a scenario's start-up: per GPU, per step, where memory goes",
          [](CLI::App& app, const GlobalOptions& global) {
            struct Options {
              std::string scenario;
              std::string format = "table";
              std::string gpu = "all";
              std::string output;
              std::string calibration;
              bool download = false;
            };
            auto o = std::make_shared<Options>();
            app.add_option("scenario", o->scenario, "scenario YAML file")->required();
            app.add_option("--format", o->format,
                           "table, markdown, json, or trace (Chrome Trace Event JSON)")
                ->check(CLI::IsMember({"table", "markdown", "json", "trace"}));
            app.add_option("--gpu", o->gpu, "a GPU's global index, or all");
            app.add_option("-o,--output", o->output, "write to this file instead of stdout");
            app.add_option("--calibration", o->calibration,
                           "calibration entry (default: the one matching the GPU)");
            app.add_flag("--download", o->download,
                         "fetch the config and safetensors headers of a Hugging Face model that "
                         "is neither in the catalog nor in the local cache");
            return [o, &global]() -> ExitCode {
              Diagnostics diags;
              if (!output_allowed("-o", o->output, {o->scenario}, diags)) {
                return report_diagnostics(diags);
              }
              std::optional<Workspace> ws = open_workspace(global, diags);
              if (!ws) return report_diagnostics(diags);
              RenderOptions render;
              if (o->gpu != "all") {
                try {
                  size_t used = 0;
                  render.only_gpu = std::stoi(o->gpu, &used);
                  if (used != o->gpu.size() || render.only_gpu < 0) throw std::invalid_argument("");
                } catch (const std::exception&) {
                  diags.error({}, "--gpu must be a GPU index or 'all', got '" + o->gpu + "'");
                }
              }
              if (!diags.empty()) return report_diagnostics(diags);
              std::optional<SimulatedScenario> sim =
                  simulate_file(*ws, o->scenario, o->calibration, diags);
              if (!sim) return report_diagnostics(diags);
              const Ledger& ledger = sim->ledger;
              if (render.only_gpu >= static_cast<int>(ledger.gpus.size())) {
                diags.error({}, "--gpu " + o->gpu + " is not a GPU of this scenario (0.." +
                                    std::to_string(ledger.gpus.size() - 1) + ")");
                return report_diagnostics(diags);
              }
              std::string text;
              if (o->format == "json") {
                text = ledger_to_json(ledger);
              } else if (o->format == "trace") {
                text = predicted_timeline(ledger);
              } else {
                text = o->format == "markdown" ? render_markdown(ledger, render)
                                               : render_table(ledger, render);
                if (ledger.fit_advice) text += advise_fit(*ledger.fit_advice, sim->scenario);
              }
              if (o->output.empty()) {
                std::fputs(text.c_str(), stdout);
              } else if (Status w = write_file_atomically(o->output, text); !w.ok()) {
                std::fprintf(stderr, "%s\n", w.message().c_str());
                return kExitBadInput;
              }
              return ledger.fits() ? kExitOk : kExitDoesNotFit;
            };
          }};
}

}  // namespace gpumem::cli
