// `gpumem explain LOG`: reads an SGLang or vLLM start-up log, writes the scenario it implies
// (--write-scenario) or takes the user's (--scenario); --gpu, --model and --gpu-count fill
// what the log does not print. It replays the scenario with the logged values
// pinned, and prints logged vs predicted phase by phase with a diagnosis. Exit code 0 when the
// replay starts, 1 when it does not fit, 2 for a log with nothing usable or a start-up that
// cannot be replayed (the implied scenario has a gap: fill it and pass --scenario).
#include <fmt/format.h>

#include <cstdio>

#include "catalog/scenario.h"
#include "cli/calibration_choice.h"
#include "cli/command.h"
#include "cli/output_guard.h"
#include "cli/release_option.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "engine/engine_model.h"
#include "explain/explanation_render.h"
#include "explain/gpu_choice.h"
#include "explain/log_reader.h"
#include "explain/version_choice.h"

namespace gpumem::cli {
namespace {

// Keeps only the start-up --startup names. A scenario file holds one start-up, so writing one
// (--write-scenario) or replaying one (--scenario) needs a single start-up: a log with several
// must say which.
template <typename Options>
Status choose_startup(StartupLog& log, int startup, const Options& o) {
  const size_t count = log.runs.size();
  if (startup > 0) {
    if (static_cast<size_t>(startup) > count) {
      return invalid_input(fmt::format("--startup {}: the log holds {} start-up{}", startup, count,
                                       count == 1 ? "" : "s"));
    }
    log.runs = {log.runs[static_cast<size_t>(startup) - 1]};
    return {};
  }
  if (count > 1 && (!o.write_scenario.empty() || !o.scenario.empty())) {
    std::string spans;
    for (const LogRun& r : log.runs) {
      spans += fmt::format("{}{}-{}", spans.empty() ? "" : ", ", r.first_line, r.last_line);
    }
    return invalid_input(
        fmt::format("the log holds {} start-ups (lines {}); {} takes one: add --startup N", count,
                    spans, o.write_scenario.empty() ? "--scenario" : "--write-scenario"));
  }
  return {};
}

}  // namespace

Command explain_command() {
  return {
      "explain", "explain a real SGLang or vLLM start-up log: logged vs predicted, diagnosis",
      [](CLI::App& app, const GlobalOptions& global) {
        struct Options {
          bool download = false;
          std::string log;
          std::string scenario;
          std::string write_scenario;
          std::string engine;
          std::string format = "table";
          int startup = 0;  // 1-based; 0: every start-up of the log
          ExplainOverrides fill;
        };
        auto o = std::make_shared<Options>();
        add_download_flag(app, o->download);
        app.add_option("log", o->log, "the engine's start-up log (text)")->required();
        app.add_option("--scenario", o->scenario,
                       "replay this scenario instead of the one the log implies");
        app.add_option("--write-scenario", o->write_scenario,
                       "write the scenario the log implies to this file (YAML)");
        app.add_option("--startup", o->startup,
                       "explain only the N-th start-up of a log that holds several")
            ->check(CLI::PositiveNumber);
        app.add_option("--engine", o->engine, engine_names() + " (default: detected)")
            ->check([](const std::string& name) {
              return log_engine_named(name) ? std::string() : "gpumem models " + engine_names();
            });
        app.add_option("--gpu", o->fill.gpu,
                       "the GPU, when the log does not print it: a catalog name, an "
                       "nvidia-smi name, or the CUDA total of an unlisted GPU (47.37GiB)");
        app.add_option("--model", o->fill.model,
                       "the model's catalog name, when the log does not name it");
        app.add_option("--gpu-count", o->fill.gpu_count,
                       "GPUs in all, when the log's flags and prefixes do not say")
            ->check(CLI::PositiveNumber);
        add_engine_version_option(app, o->fill.engine_version,
                                  "the engine release that ran, when the log does not "
                                  "print it or runs a branch (0.4.6.post1)");
        app.add_flag("--from-scratch", o->fill.from_scratch,
                     "replay without pinning what the log printed: gpumem's prediction alone");
        app.add_option("--format", o->format, "table, markdown or json")
            ->check(CLI::IsMember({"table", "markdown", "json"}));
        return [o, &global]() -> ExitCode {
          Diagnostics diags;
          if (!output_allowed("--write-scenario", o->write_scenario, {o->log, o->scenario},
                              diags)) {
            return report_diagnostics(diags);
          }
          std::optional<Workspace> ws = open_workspace(global, diags, o->download);
          if (!ws) return report_diagnostics(diags);
          Result<std::string> text = read_file(o->log, InputKind::kLog);
          if (!text.ok()) {
            std::fprintf(stderr, "%s\n", text.status().message().c_str());
            return kExitBadInput;
          }
          std::optional<LogEngine> engine;
          if (!o->engine.empty()) engine = log_engine_named(o->engine);
          Result<StartupLog> log = read_startup_log(text.value(), engine, o->log);
          if (!log.ok()) {
            std::fprintf(stderr, "%s\n", log.status().message().c_str());
            return kExitBadInput;
          }
          if (Status chosen = choose_startup(*log, o->startup, *o); !chosen.ok()) {
            std::fprintf(stderr, "%s: %s\n", o->log.c_str(), chosen.message().c_str());
            return kExitBadInput;
          }
          if (!o->fill.gpu.empty() && !gpu_from_option(ws->gpus, o->fill.gpu)) {
            std::fprintf(stderr, "--gpu: %s\n", unknown_gpu_option(ws->gpus, o->fill.gpu).c_str());
            return kExitBadInput;
          }
          if (!o->fill.engine_version.empty()) {
            const std::string wrong = given_release_error(log->engine, o->fill.engine_version);
            if (!wrong.empty()) {
              std::fprintf(stderr, "--engine-version: %s\n", wrong.c_str());
              return kExitBadInput;
            }
          }
          std::optional<Scenario> user;
          if (!o->scenario.empty()) {
            user = load_scenario(o->scenario, ws->gpus, diags);
            if (!user || !diags.empty()) return report_diagnostics(diags);
          }
          const Workspace& w = *ws;
          const ExplainContext ctx{
              w.gpus,
              w.models,
              [&w](const Scenario& s, Diagnostics& d) { return choose_calibration(w, s, "", d); },
              {}};
          const Explanation e =
              explain_log(log.value(), o->log, user ? &*user : nullptr, o->fill, ctx);
          if (!o->write_scenario.empty()) {
            // One start-up (choose_startup made sure), so one document, which
            // --scenario reads back for that same start-up.
            const std::string again =
                o->startup > 0 ? " --startup " + std::to_string(o->startup) : "";
            const std::string header =
                "# The scenario implied by " + o->log + ", start-up " +
                std::to_string(o->startup > 0 ? o->startup : 1) + " (log lines " +
                std::to_string(e.runs[0].first_line) + "-" + std::to_string(e.runs[0].last_line) +
                "), written by gpumem explain.\n# Edit it and re-run: gpumem explain " + o->log +
                again + " --scenario FILE\n";
            const std::string yaml = scenario_yaml(e.runs[0].implied, header);
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
