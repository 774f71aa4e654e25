// `gpumem export-ops SCENARIO -o DIR`: the operation trace of the scenario's start-up
// program, one file per rank (DIR/ops.rank<R>.json, format "gpumem.ops/2",
// src/opstrace/README.md), for the torch probe to replay inside a real PyTorch process
// (src/probe/torch/run_ops.py). The program runs as `gpumem simulate` runs it, with the
// same calibration.
#include <cstdio>
#include <filesystem>

#include "catalog/scenario.h"
#include "cli/calibration_choice.h"
#include "cli/command.h"
#include "cli/output_guard.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "opstrace/export_ops.h"

namespace gpumem::cli {

Command export_ops_command() {
  return {"export-ops",
          "write the operation trace of a scenario's start-up, per rank, for the torch probe",
          [](CLI::App& app, const GlobalOptions& global) {
            struct Options {
              bool download = false;
              std::string scenario;
              std::string out;
              std::string calibration;
            };
            auto o = std::make_shared<Options>();
            add_download_flag(app, o->download);
            app.add_option("scenario", o->scenario, "scenario file")->required();
            app.add_option("-o,--out", o->out, "directory for ops.rank<R>.json")->required();
            app.add_option("--calibration", o->calibration,
                           "calibration entry (default: the one matching the GPU)");
            return [o, &global]() -> ExitCode {
              Diagnostics diags;
              std::optional<Workspace> ws = open_workspace(global, diags, o->download);
              if (!ws) return report_diagnostics(diags);
              std::optional<Scenario> s = load_scenario(o->scenario, ws->gpus, diags);
              if (!s || !diags.empty()) return report_diagnostics(diags);
              std::optional<SimulationConstants> constants =
                  choose_calibration(*ws, *s, o->calibration, diags, kRawProbe);
              if (!constants) return report_diagnostics(diags);
              const std::string calibration = constants->name;
              std::optional<SimulatedStartup> run =
                  simulated_startup(*s, SimulationInputs{ws->gpus, ws->models, *constants}, diags);
              if (!run || !diags.empty()) return report_diagnostics(diags);
              const GpuSpec& gpu = *ws->gpus.find(s->hardware.gpu);
              const Interconnect modelled = s->hardware.interconnect.value_or(gpu.interconnect);
              OpsTraceHeader header;
              header.scenario = s->name;
              header.scenario_file = o->scenario;
              header.gpu_type = gpu.name;
              header.calibration = calibration;
              header.interconnect_modelled = std::string(interconnect_name(modelled));
              header.emulated = modelled != gpu.interconnect;
              for (const EnvVar& v : s->engine.env) header.env.emplace_back(v.name, v.value);
              std::vector<std::pair<std::string, std::string>> files;
              for (int r = 0; r < static_cast<int>(run->ranks.size()); ++r) {
                const std::string path =
                    (std::filesystem::path(o->out) / ("ops.rank" + std::to_string(r) + ".json"))
                        .string();
                if (!output_allowed("-o", path, {o->scenario}, diags)) {
                  return report_diagnostics(diags);
                }
                files.emplace_back(path, std::string());
              }
              Result<std::vector<nlohmann::ordered_json>> traces =
                  export_ops(*run, constants->engines, header);
              if (!traces.ok()) {
                diags.error({o->scenario, 0, 0}, traces.status().message());
                return report_diagnostics(diags);
              }
              for (size_t r = 0; r < files.size(); ++r)
                files[r].second = ops_trace_text((*traces)[r]);
              std::error_code ec;
              std::filesystem::create_directories(o->out, ec);
              if (ec) {
                diags.error({}, o->out + ": cannot create the directory: " + ec.message());
                return report_diagnostics(diags);
              }
              if (Status w = write_files_atomically(files); !w.ok()) {
                diags.error({}, w.message());
                return report_diagnostics(diags);
              }
              std::printf("%s: %zu operation trace(s) in %s (%s)\n", s->name.c_str(), files.size(),
                          o->out.c_str(), calibration.c_str());
              return kExitOk;
            };
          }};
}

}  // namespace gpumem::cli
