// `gpumem check`: the simulator's predictions against the probe's traces of the same
// start-up — per GPU and per step, with a verdict against tolerances. Exit code 4 when a
// tolerance is exceeded.
//
//   gpumem check --trace reports/probe/h200x2/h200x2-llama8b-tp2/run1
//   gpumem check --all reports/probe          (every trace directory below, as CI runs it)
//   gpumem check --trace DIR --timeline run.json   (both start-ups side by side in Perfetto)
//
// Each trace directory holds the scenario it ran (scenario.yaml); a SCENARIO argument
// overrides it. A trace of the torch probe is simulated with the calibration of the PyTorch
// process (model/calibration files with `probe: torch`), gpumem-probe's with the raw one;
// each report names the probe and the calibration.
#include <cstdio>
#include <filesystem>

#include "calib/check.h"
#include "calib/replayed_decisions.h"
#include "calib/trace.h"
#include "catalog/scenario.h"
#include "cli/calibration_choice.h"
#include "cli/command.h"
#include "cli/output_guard.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "core/size_parse.h"
#include "picture/timeline.h"
#include "simulate/simulate.h"

namespace gpumem::cli {

Command check_command() {
  return {
      "check", "compare simulated start-ups with probe traces; exit 4 outside tolerance",
      [](CLI::App& app, const GlobalOptions& global) {
        struct Options {
          std::string scenario;
          std::vector<std::string> traces;
          std::string all;
          std::string max_step = "32MiB";
          std::string median_step = "4MiB";
          std::string calibration;
          std::string timeline;
        };
        auto o = std::make_shared<Options>();
        app.add_option("scenario", o->scenario, "scenario (default: each trace's scenario.yaml)");
        app.add_option("--trace", o->traces, "a directory of trace.rank<R>.json files");
        app.add_option("--all", o->all, "check every trace directory below this one");
        app.add_option("--max-step-error", o->max_step, "largest allowed step error")
            ->capture_default_str();
        app.add_option("--median-step-error", o->median_step, "allowed median step error")
            ->capture_default_str();
        app.add_option("--calibration", o->calibration,
                       "calibration entry (default: the one matching the GPU)");
        app.add_option("--timeline", o->timeline,
                       "write the predicted and measured start-ups of the one --trace DIR as a "
                       "Chrome trace (Perfetto UI, chrome://tracing) to this file");
        return [o, &global]() -> ExitCode {
          Diagnostics diags;
          std::optional<Workspace> ws = open_workspace(global, diags);
          if (!ws) return report_diagnostics(diags);
          CheckTolerances tol;
          Result<Bytes> max_step = parse_size(o->max_step);
          Result<Bytes> median_step = parse_size(o->median_step);
          if (!max_step.ok() || !median_step.ok()) {
            diags.error({}, "--max-step-error/--median-step-error: " +
                                (!max_step.ok() ? max_step : median_step).status().message());
            return report_diagnostics(diags);
          }
          tol.max_step_error = *max_step;
          tol.median_step_error = *median_step;
          std::vector<std::string> dirs = o->traces;
          if (!o->all.empty()) {
            const std::vector<std::string> found = find_trace_dirs(o->all);
            if (found.empty()) {
              diags.error({}, "--all " + o->all +
                                  ": no trace directories (trace.rank<R>.json) "
                                  "under it; nothing to check");
              return report_diagnostics(diags);
            }
            dirs.insert(dirs.end(), found.begin(), found.end());
          }
          if (dirs.empty()) {
            diags.error({}, "give --trace DIR or --all DIR");
            return report_diagnostics(diags);
          }
          if (!o->timeline.empty() && dirs.size() != 1) {
            diags.error({}, "--timeline draws one probe run: give exactly one --trace DIR");
            return report_diagnostics(diags);
          }
          if (!o->timeline.empty()) {
            std::vector<std::string> inputs = files_in(dirs.front());
            inputs.push_back(o->scenario);
            if (!output_allowed("--timeline", o->timeline, inputs, diags)) {
              return report_diagnostics(diags);
            }
          }
          // All or nothing: every directory is read and simulated first; a directory that
          // cannot be checked (bad input) means no table is printed, only the errors (exit 2).
          struct Checked {
            std::string dir;
            CheckResult result;
            std::string timeline;
          };
          std::vector<Checked> checked;
          for (const std::string& dir : dirs) {
            Result<std::vector<Trace>> traces = read_trace_dir(dir);
            if (!traces.ok()) {
              diags.error({}, traces.status().message());
              continue;
            }
            const std::string file = o->scenario.empty()
                                         ? (std::filesystem::path(dir) / "scenario.yaml").string()
                                         : o->scenario;
            Diagnostics local;
            std::optional<Scenario> s = load_scenario(file, ws->gpus, local);
            if (!s || !local.empty()) {
              diags.append(local);
              continue;
            }
            if (o->scenario.empty()) s->name = traces->front().scenario;
            if (const GpuSpec* gpu = ws->gpus.find(s->hardware.gpu); gpu != nullptr) {
              if (Status m = check_traces_match(*s, *gpu, *traces); !m.ok()) {
                diags.error({}, m.message());
                continue;
              }
            }
            *s = with_replayed_decisions(std::move(*s), traces->front());
            // A torch probe trace is checked against the PyTorch process's calibration
            // (read_trace_dir saw that every rank's trace names the same probe).
            const std::string& probe = traces->front().probe;
            std::optional<SimulationConstants> constants =
                choose_calibration(*ws, *s, o->calibration, local, probe);
            if (!local.empty()) {
              diags.append(local);
              continue;
            }
            if (!constants) {
              diags.append(local);
              continue;
            }
            const GpuCatalog machine = with_traced_machine(ws->gpus, *s, traces->front());
            SimulationInputs inputs{machine, ws->models,
                                    with_replayed_program(std::move(*constants), traces->front())};
            std::optional<Ledger> ledger = simulate_scenario(*s, inputs, local);
            if (!ledger || !local.empty()) {
              diags.append(local);
              continue;
            }
            checked.push_back(
                {dir, check_ledger(*ledger, *traces, tol),
                 o->timeline.empty() ? std::string() : compared_timeline(*ledger, *traces)});
          }
          if (!diags.empty()) return report_diagnostics(diags);
          if (!o->timeline.empty()) {
            if (Status w = write_file_atomically(o->timeline, checked.front().timeline); !w.ok()) {
              diags.error({}, w.message());
              return report_diagnostics(diags);
            }
          }
          int failed = 0;
          for (const Checked& c : checked) {
            std::printf("%s", render_check(c.result).c_str());
            std::printf("trace: %s\n\n", c.dir.c_str());
            if (!c.result.passed()) ++failed;
          }
          std::printf("%d of %zu trace directories outside tolerance\n", failed, dirs.size());
          return failed == 0 ? kExitOk : kExitCheckFailed;
        };
      }};
}

}  // namespace gpumem::cli
