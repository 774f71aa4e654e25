// `gpumem calibrate DIR... -o model/calibration/NAME.yaml`: fits the simulator's constants
// to every probe trace found under DIR... (least squares, calib/fit.h), holding out the
// scenarios named by --hold-out, and writes the calibration file and, per <gpu>x<count>, a
// report (reports/calibration/) with the check table of every trace, fitted and held out.
// One probe's traces at a time (--probe): gpumem-probe's raw CUDA process, or the torch
// probe's PyTorch process, whose fit starts from the raw calibration of the GPU and adds
// the constants only a PyTorch process has; traces of the other probe are counted and left
// out. --measured NAME=SIZE sets a constant measured apart from the traces (one the traces
// cannot tell from another: the torch replays create PyTorch's stream pool, ATen module and
// generator tensors at one step), written to the file as given and not fitted.
// --start-from NAME starts the fit from another calibration's constants, so that those the
// traces cannot show keep a measured value: one-GPU traces show no NCCL communicator, and an
// H100 fit takes the NCCL constants the H200's two-GPU traces fitted (the same sm_90 kernel
// image of the same NCCL release) rather than the published figures.
// --from-logs fits a GPU no probe ran on to public start-up logs instead
// (cli/calibrate_from_logs.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "calib/calibration_file.h"
#include "calib/fit.h"
#include "calib/replayed_decisions.h"
#include "cli/calibrate_from_logs.h"
#include "cli/calibration_choice.h"
#include "cli/command.h"
#include "cli/output_guard.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "core/file_name.h"
#include "core/size_parse.h"
#include "core/spelling.h"

namespace gpumem::cli {
namespace {

std::string summary_text(const ErrorSummary& s) {
  return fmt::format("{} steps, median |error| {}, max |error| {}", s.steps, format_mib(s.median),
                     format_mib(s.max));
}

}  // namespace

Command calibrate_command() {
  return {
      "calibrate", "fit the simulator's constants to probe traces (least squares)",
      [](CLI::App& app, const GlobalOptions& global) {
        struct Options {
          std::vector<std::string> roots;
          std::string output;
          std::vector<std::string> hold_out;
          std::string report_dir = "reports/calibration";
          std::string probe{kRawProbe};
          std::vector<std::string> measured;
          std::string start_from;
          bool from_logs = false;
          std::string gpu;
          std::string stand_in = "qwen3-0.6b";
        };
        auto o = std::make_shared<Options>();
        app.add_option("traces", o->roots,
                       "directories searched for probe traces (with --from-logs: start-up "
                       "logs, or directories of *.log files)")
            ->required();
        app.add_flag("--from-logs", o->from_logs,
                     "fit the GPU's CUDA context to the memory start-up logs show before "
                     "the weights, for a GPU no probe ran on");
        app.add_option("--gpu", o->gpu, "with --from-logs: the GPU type calibrated");
        app.add_option("--stand-in-model", o->stand_in,
                       "with --from-logs: the catalog model replayed where a log's model "
                       "cannot be built (the figures before the weights do not depend on it)")
            ->capture_default_str();
        app.add_option("-o,--output", o->output, "calibration file to write")->required();
        app.add_option("--hold-out", o->hold_out,
                       "scenario names (with --from-logs: log file names without .log) "
                       "checked but never fitted on");
        app.add_option(
               "--report-dir", o->report_dir,
               "where the reports go (<gpu>x<count>.md; with --from-logs, <output's name>.md)")
            ->capture_default_str();
        app.add_option("--probe", o->probe, "whose traces: gpumem-probe or torch")
            ->capture_default_str();
        app.add_option("--measured", o->measured,
                       "NAME=SIZE: a constant measured apart from the traces, not fitted");
        app.add_option("--start-from", o->start_from,
                       "calibration whose constants the fit starts from, kept where the "
                       "traces cannot show them (default: the GPU's published figures; "
                       "with --probe torch, the GPU's raw calibration)");
        return [o, &global, &app]() -> ExitCode {
          Diagnostics diags;
          if (o->from_logs) {
            // The probe's own options have no meaning for logs: refused by name.
            for (const char* probe_only : {"--probe", "--measured", "--start-from"}) {
              if (app.count(probe_only) > 0) {
                diags.error({}, std::string(probe_only) + " is for probe traces, not --from-logs");
              }
            }
            if (o->gpu.empty()) {
              diags.error({}, "--from-logs needs --gpu, the GPU type it calibrates");
            }
            if (!diags.empty()) return report_diagnostics(diags);
            return calibrate_from_logs(
                {o->roots, o->gpu, o->output, o->hold_out, o->report_dir, o->stand_in}, global);
          }
          for (const char* logs_only : {"--gpu", "--stand-in-model"}) {
            if (app.count(logs_only) > 0) {
              diags.error({}, std::string(logs_only) + " is for --from-logs, not probe traces");
            }
          }
          if (!diags.empty()) return report_diagnostics(diags);
          if (!output_allowed("-o", o->output, {}, diags)) return report_diagnostics(diags);
          if (o->probe != kRawProbe && o->probe != kTorchProbe) {
            diags.error({}, "--probe " + o->probe + ": gpumem knows gpumem-probe and torch");
            return report_diagnostics(diags);
          }
          const bool pytorch = o->probe == kTorchProbe;
          std::optional<Workspace> ws = open_workspace(global, diags);
          if (!ws) return report_diagnostics(diags);
          std::vector<FitRun> runs;
          int other_probe = 0;
          const std::set<std::string> held(o->hold_out.begin(), o->hold_out.end());
          for (const std::string& root : o->roots) {
            for (const std::string& dir : find_trace_dirs(root)) {
              Result<std::vector<Trace>> traces = read_trace_dir(dir);
              if (!traces.ok()) {
                diags.error({}, traces.status().message());
                continue;
              }
              if (traces->front().probe != o->probe) {
                ++other_probe;
                continue;
              }
              std::optional<Scenario> s = load_scenario(
                  (std::filesystem::path(dir) / "scenario.yaml").string(), ws->gpus, diags);
              if (!s) continue;
              s->name = traces->front().scenario;  // the copy is named scenario.yaml
              if (const GpuSpec* gpu = ws->gpus.find(s->hardware.gpu); gpu != nullptr) {
                if (Status m = check_traces_match(*s, *gpu, *traces); !m.ok()) {
                  diags.error({}, m.message());
                  continue;
                }
              }
              *s = with_replayed_decisions(std::move(*s), traces->front());
              const bool held_out = held.count(s->name) > 0;
              runs.push_back({dir, std::move(*s), std::move(*traces), held_out});
            }
          }
          if (!diags.empty()) return report_diagnostics(diags);
          if (runs.empty()) {
            diags.error({}, "no traces of the " + o->probe + " probe found");
            return report_diagnostics(diags);
          }
          // A held-out name that matches no trace would leave that scenario in the fit
          // while the user believes it held out.
          std::vector<std::string> scenario_names;
          for (const FitRun& r : runs) scenario_names.push_back(r.scenario.name);
          for (const std::string& name : held) {
            if (std::find(scenario_names.begin(), scenario_names.end(), name) ==
                scenario_names.end()) {
              diags.error({}, "--hold-out '" + name + "' names no scenario of the traces" +
                                  did_you_mean(name, scenario_names));
            }
          }
          if (!diags.empty()) return report_diagnostics(diags);
          const GpuSpec* gpu = ws->gpus.find(runs.front().scenario.hardware.gpu);
          for (const FitRun& r : runs) {
            if (ws->gpus.find(r.scenario.hardware.gpu) != gpu) {
              diags.error({}, r.dir + ": another GPU type; calibrate one GPU type at a time");
            }
          }
          if (!diags.empty() || gpu == nullptr) return report_diagnostics(diags);
          std::map<const Parameter*, Bytes> measured;
          for (const std::string& m : o->measured) {
            const size_t eq = m.find('=');
            const std::string name = m.substr(0, std::min(eq, m.size()));
            const Parameter* p = find_parameter(name);
            if (p == nullptr || (p->pytorch_only && !pytorch)) {
              const std::vector<std::string> names = parameter_names();
              diags.error({"--measured", 0, 0},
                          "'" + name + "' is no constant of the " + o->probe + " probe" +
                              (p == nullptr ? did_you_mean(name, names) : ""));
              continue;
            }
            Result<Bytes> size = eq == std::string::npos
                                     ? Result<Bytes>(invalid_input("give NAME=SIZE"))
                                     : parse_size(m.substr(eq + 1));
            if (!size.ok()) {
              diags.error({"--measured", 0, 0}, m + ": " + size.status().message());
              continue;
            }
            measured[p] = *size;
          }
          if (!diags.empty()) return report_diagnostics(diags);
          std::vector<const Parameter*> params;
          for (const Parameter& p : calibration_parameters()) {
            if ((!p.pytorch_only || pytorch) && !measured.contains(&p)) params.push_back(&p);
          }
          // A PyTorch process runs on the raw one: its fit starts from the GPU's raw
          // calibration, so what its traces cannot show (NCCL on one GPU) stays fitted.
          std::optional<SimulationConstants> start = default_constants(*gpu);
          if (pytorch || !o->start_from.empty()) {
            start = choose_calibration(*ws, runs.front().scenario, o->start_from, diags, kRawProbe);
          }
          if (!start) return report_diagnostics(diags);
          // The raw process has none of PyTorch's own costs, whatever file it starts from.
          for (const Parameter& p : calibration_parameters()) {
            if (p.pytorch_only && !pytorch) p.set(*start, Bytes{});
          }
          for (const auto& [p, size] : measured) p->set(*start, size);
          const CheckTolerances tolerances;
          Result<FitOutcome> fit =
              fit_constants(runs, ws->gpus, ws->models, *start, params, tolerances);
          if (!fit.ok()) {
            diags.error({}, fit.status().message());
            return report_diagnostics(diags);
          }
          const Trace& t = runs.front().traces.front();
          CalibrationFile file;
          file.name = std::filesystem::path(o->output).stem().string();
          file.gpu = gpu->name;
          file.probe = o->probe;
          file.provenance = {{"gpu", t.gpu_name},
                             {"driver", t.driver_version},
                             {"cuda_runtime", std::to_string(t.cuda_runtime)},
                             {"nccl", std::to_string(t.nccl_version)}};
          if (pytorch) file.provenance.emplace_back("pytorch", t.torch_version);
          if (pytorch || !o->start_from.empty()) {
            file.provenance.emplace_back("started_from", start->name);
          }
          std::string fitted_dirs;
          std::string held_dirs;
          for (const FitRun& r : runs) {
            (r.held_out ? held_dirs : fitted_dirs) +=
                (r.held_out ? held_dirs : fitted_dirs).empty() ? r.dir : ", " + r.dir;
          }
          file.provenance.emplace_back("fitted_on", fitted_dirs);
          file.provenance.emplace_back("held_out", held_dirs);
          // Every constant of the probe, fitted or measured, in the parameters' order.
          std::string measured_names;
          for (const Parameter& p : calibration_parameters()) {
            if (p.pytorch_only && !pytorch) continue;
            file.constants.emplace_back(std::string(p.name), p.get(fit->constants));
            if (measured.contains(&p)) {
              measured_names += (measured_names.empty() ? "" : ", ") + std::string(p.name);
            }
          }
          if (!measured_names.empty()) {
            file.provenance.emplace_back("measured_not_fitted", measured_names);
          }
          const ErrorSummary fitted = summarize(fit->fitted);
          const ErrorSummary held_out = summarize(fit->held_out);
          file.residuals = {{"fitted", summary_text(fitted)},
                            {"held_out", summary_text(held_out)},
                            {"iterations", std::to_string(fit->iterations)}};
          // The calibration file and its reports are written all or nothing.
          std::vector<std::pair<std::string, std::string>> outputs = {
              {o->output, calibration_file_text(file)}};
          // One report per <gpu>x<count>: every trace's check table.
          std::map<int, std::string> reports;
          auto add = [&](const FitRun& run, const CheckResult& c, bool is_held) {
            const int count = run.scenario.total_gpus();
            std::string& text = reports[count];
            text += (is_held ? "Held out. " : "Fitted on. ") + std::string("Trace: `") + run.dir +
                    "`\n\n" + render_check(c);
          };
          size_t f = 0;
          size_t h = 0;
          for (const FitRun& run : runs) {
            if (run.held_out) {
              add(run, fit->held_out[h++], true);
            } else {
              add(run, fit->fitted[f++], false);
            }
          }
          std::error_code ec;
          std::filesystem::create_directories(o->report_dir, ec);
          // Named as the probe's trace folders are: the GPU's short alias ("h200x2").
          const std::string short_name = gpu->aliases.empty() ? gpu->name : gpu->aliases[0];
          for (const auto& [count, body] : reports) {
            std::string text = fmt::format(
                "# Calibration check: {} x {}\n\nWritten by `gpumem calibrate`. Constants: "
                "`{}`.\n\n- fitted: {}\n- held out: {}\n\n",
                gpu->name, count, o->output, summary_text(fitted), summary_text(held_out));
            text += "| constant | value |\n| --- | ---: |\n";
            for (const auto& [name, value] : file.constants) {
              text +=
                  fmt::format("| {} | {} ({}) |\n", name, format_bytes(value), format_mib(value));
            }
            text += "\n" + body;
            const std::string stem =
                fmt::format("{}x{}{}", short_name, count, pytorch ? "-torch" : "");
            Result<std::string> path =
                file_in_directory(o->report_dir, stem, ".md", "the GPU's name");
            if (!path.ok()) {
              diags.error({}, path.status().message());
              return report_diagnostics(diags);
            }
            outputs.emplace_back(*path, std::move(text));
          }
          if (Status w = write_files_atomically(outputs); !w.ok()) {
            diags.error({}, w.message());
            return report_diagnostics(diags);
          }
          std::printf("fitted: %s\nheld out: %s\nwrote %s\n", summary_text(fitted).c_str(),
                      summary_text(held_out).c_str(), o->output.c_str());
          if (other_probe > 0) {
            std::printf("left out: %d trace directories of the other probe\n", other_probe);
          }
          return report_diagnostics(diags);
        };
      }};
}

}  // namespace gpumem::cli
