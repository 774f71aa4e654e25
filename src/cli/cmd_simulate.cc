// `gpumem simulate SCENARIO` or `gpumem simulate --gpu h100x2 -- vllm serve MODEL ...`: the
// start-up's verdict first (does it start; if not where, why, by how much, and what would
// make it start; KV tokens, concurrency, the smallest headroom), then with --detail the
// per-GPU, per-step table; or Markdown, JSON (schema gpumem.ledger/2), or a Chrome trace
// (Perfetto UI, chrome://tracing). Exit code 1 when it does not fit.
#include <cstdio>

#include "cli/command.h"
#include "cli/headroom_option.h"
#include "cli/output_guard.h"
#include "cli/scenario_input.h"
#include "cli/simulated_scenario.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "engine/engine_model.h"
#include "launch/launch_command.h"
#include "picture/timeline.h"
#include "report/render.h"
#include "report/summary.h"
#include "runtime/ledger_json.h"
#include "simulate/fit_advice.h"

namespace gpumem::cli {
namespace {

// Each alternative of the fit advice as the user would run it: the corrected launch command
// when the scenario came from one, else the flag and its value.
std::vector<std::string> fix_lines(const SimulatedScenario& sim, const GlobalOptions& global) {
  std::vector<std::string> lines;
  if (!sim.ledger.fit_advice) return lines;
  Diagnostics ignored;
  const EngineModel* engine = engine_of(sim.scenario, ignored);
  for (const FitOption& o : sim.ledger.fit_advice->options) {
    if (global.launch.empty() || engine == nullptr) {
      const std::string value = o.value == "true" ? "" : " " + o.value;
      lines.push_back(o.flag + value + " (instead of " + o.instead_of + ")");
      continue;
    }
    std::vector<std::string> removed;
    for (const FitKnob& k : engine->fit_knobs(sim.scenario)) {
      if (k.flag == o.flag) removed = k.replaces;
    }
    lines.push_back(launch_with_flag(global.launch, o.flag, o.value, removed));
  }
  return lines;
}

}  // namespace

Command simulate_command() {
  return {"simulate",
          "simulate a start-up (a scenario or a launch command): does it fit, where "
          "memory goes",
          [](CLI::App& app, const GlobalOptions& global) {
            struct Options {
              ScenarioInput input;
              std::string format = "text";
              bool detail = false;
              int rank = -1;
              std::string output;
              std::string calibration;
              bool download = false;
              std::string min_headroom;
            };
            auto o = std::make_shared<Options>();
            add_scenario_input(app, o->input);
            app.add_option("--format", o->format,
                           "text (the verdict; the step table with --detail), markdown, json, or "
                           "trace (Chrome Trace Event JSON)")
                ->check(CLI::IsMember({"text", "table", "markdown", "json", "trace"}));
            app.add_flag("--detail", o->detail,
                         "after the verdict, every GPU's steps, facts and engine log lines");
            app.add_option("--rank", o->rank, "show only this GPU (its global index)")
                ->check(CLI::NonNegativeNumber);
            app.add_option("-o,--output", o->output, "write to this file instead of stdout");
            app.add_option("--calibration", o->calibration,
                           "calibration entry (default: the one matching the GPU)");
            add_download_flag(app, o->download);
            add_min_headroom_option(app, o->min_headroom);
            return [o, &global]() -> ExitCode {
              Diagnostics diags;
              const std::optional<Bytes> min_headroom = read_min_headroom(o->min_headroom, diags);
              if (!min_headroom) return report_diagnostics(diags);
              if (!output_allowed("-o", o->output, {o->input.file}, diags)) {
                return report_diagnostics(diags);
              }
              std::optional<Workspace> ws = open_workspace(global, diags, o->download);
              if (!ws) return report_diagnostics(diags);
              std::optional<Scenario> scenario = load_scenario_input(*ws, o->input, global, diags);
              if (!scenario) return report_diagnostics(diags);
              std::optional<SimulatedScenario> sim =
                  simulate_loaded(*ws, std::move(*scenario), o->calibration, diags, *min_headroom);
              if (!sim) return report_diagnostics(diags);
              const Ledger& ledger = sim->ledger;
              RenderOptions render;
              render.only_gpu = o->rank;
              if (render.only_gpu >= static_cast<int>(ledger.gpus.size())) {
                diags.error({}, "--rank " + std::to_string(o->rank) +
                                    " is not a GPU of this scenario (0.." +
                                    std::to_string(ledger.gpus.size() - 1) + ")");
                return report_diagnostics(diags);
              }
              std::string text;
              if (o->format == "json") {
                text = ledger_to_json(ledger);
              } else if (o->format == "trace") {
                text = predicted_timeline(ledger);
              } else if (o->format == "markdown") {
                text = render_markdown(ledger, render);
                if (ledger.fit_advice) text += advise_fit(*ledger.fit_advice, sim->scenario);
              } else {
                text = render_summary(ledger, fix_lines(*sim, global));
                if (o->detail || o->format == "table" || o->rank >= 0) {
                  text += "\n" + render_table(ledger, render);
                } else {
                  text += "(gpumem simulate ... --detail: every GPU's steps, facts and log)\n";
                }
              }
              if (o->output.empty()) {
                std::fputs(text.c_str(), stdout);
              } else if (Status w = write_file_atomically(o->output, text); !w.ok()) {
                std::fprintf(stderr, "%s\n", w.message().c_str());
                return kExitBadInput;
              }
              return starts_safely(ledger, *min_headroom) ? kExitOk : kExitDoesNotFit;
            };
          }};
}

}  // namespace gpumem::cli
