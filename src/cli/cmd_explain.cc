// `gpumem explain LOG`: reads an SGLang or vLLM start-up log, writes the scenario it implies
// (--write-scenario) or takes the user's (--scenario); --gpu, --model and --gpu-count fill
// what the log does not print. It replays the scenario with the logged values
// pinned, and prints logged vs predicted phase by phase with a diagnosis. Exit code 0 when the
// replay starts, 1 when it does not fit, 2 for a log with nothing usable or a start-up that
// cannot be replayed (the implied scenario has a gap: fill it and pass --scenario).
#include <cstdio>

#include "catalog/scenario.h"
#include "cli/calibration_choice.h"
#include "cli/command.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "explain/explanation_render.h"
#include "explain/log_reader.h"

namespace gpumem::cli {

Command explain_command() {
  return {"explain", "explain a real SGLang or vLLM start-up log: logged vs predicted, diagnosis",
          [](CLI::App& app, const GlobalOptions& global) {
            struct Options {
              std::string log;
              std::string scenario;
              std::string write_scenario;
              std::string engine;
              std::string format = "table";
              ExplainOverrides fill;
            };
            auto o = std::make_shared<Options>();
            app.add_option("log", o->log, "the engine's start-up log (text)")->required();
            app.add_option("--scenario", o->scenario,
                           "replay this scenario instead of the one the log implies");
            app.add_option("--write-scenario", o->write_scenario,
                           "write the scenario the log implies to this file (YAML)");
            app.add_option("--engine", o->engine, "sglang or vllm (default: detected)")
                ->check(CLI::IsMember({"sglang", "vllm"}));
            app.add_option("--gpu", o->fill.gpu, "the GPU type, when the log does not print it");
            app.add_option("--model", o->fill.model,
                           "the model's catalog name, when the log does not name it");
            app.add_option("--gpu-count", o->fill.gpu_count,
                           "GPUs in all, when the log's flags and prefixes do not say")
                ->check(CLI::PositiveNumber);
            app.add_option("--format", o->format, "table, markdown or json")
                ->check(CLI::IsMember({"table", "markdown", "json"}));
            return [o, &global]() -> ExitCode {
              Diagnostics diags;
              std::optional<Workspace> ws = open_workspace(global, diags);
              if (!ws) return report_diagnostics(diags);
              Result<std::string> text = read_file(o->log);
              if (!text.ok()) {
                std::fprintf(stderr, "%s\n", text.status().message().c_str());
                return kExitBadInput;
              }
              std::optional<LogEngine> engine;
              if (!o->engine.empty()) {
                engine = o->engine == "sglang" ? LogEngine::kSglang : LogEngine::kVllm;
              }
              Result<StartupLog> log = read_startup_log(text.value(), engine);
              if (!log.ok()) {
                std::fprintf(stderr, "%s: %s\n", o->log.c_str(), log.status().message().c_str());
                return kExitBadInput;
              }
              std::optional<Scenario> user;
              if (!o->scenario.empty()) {
                user = load_scenario(o->scenario, ws->gpus, diags);
                if (!user || !diags.empty()) return report_diagnostics(diags);
              }
              const Workspace& w = *ws;
              const ExplainContext ctx{w.gpus,
                                       w.models,
                                       [&w](const Scenario& s, Diagnostics& d) {
                                         return choose_calibration(w, s, "", d);
                                       },
                                       {}};
              const Explanation e =
                  explain_log(log.value(), o->log, user ? &*user : nullptr, o->fill, ctx);
              if (!o->write_scenario.empty()) {
                std::string yaml;
                for (size_t i = 0; i < e.runs.size(); ++i) {
                  const std::string header =
                      "# The scenario implied by " + o->log + ", start-up " +
                      std::to_string(i + 1) + " (log lines " +
                      std::to_string(e.runs[i].first_line) + "-" +
                      std::to_string(e.runs[i].last_line) +
                      "), written by gpumem explain.\n# Edit it and re-run: gpumem explain " +
                      o->log + " --scenario FILE\n";
                  yaml += (i ? "---\n" : "") + scenario_yaml(e.runs[i].implied, header);
                }
                if (Status s = write_file_atomically(o->write_scenario, yaml); !s.ok()) {
                  std::fprintf(stderr, "%s\n", s.message().c_str());
                  return kExitBadInput;
                }
              }
              const std::string out = o->format == "json"
                                          ? render_explanation_json(e)
                                          : render_explanation_text(e, o->format == "markdown");
              std::fputs(out.c_str(), stdout);
              return explanation_exit_code(e);
            };
          }};
}

}  // namespace gpumem::cli
