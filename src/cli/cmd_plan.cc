// `gpumem plan MODEL --gpus h200x8 [--engine E] [--max-model-len N] [--min-tokens N]
// [--min-headroom SIZE]`: which parallel layouts of MODEL start on up to that many GPUs of
// that kind (plan/plan.h), with KV tokens and headroom for each, and per engine the fewest
// GPUs that start. Exit code 0 when some layout qualifies, 1 when none does, 2 on bad input.
#include <algorithm>
#include <cstdio>
#include <thread>

#include "cli/calibration_choice.h"
#include "cli/command.h"
#include "cli/headroom_option.h"
#include "cli/output_guard.h"
#include "cli/release_option.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "launch/launch_scenario.h"
#include "plan/plan.h"
#include "plan/plan_report.h"

namespace gpumem::cli {

// More GPUs than this is more than one node of any GPU gpumem knows.
constexpr int kMaxPlanGpus = 64;

Command plan_command() {
  return {
      "plan", "which parallel layouts (TP x PP x DP, EP) of a model start on up to N GPUs",
      [](CLI::App& app, const GlobalOptions& global) {
        struct Options {
          bool download = false;
          std::string model;
          std::string gpus;
          std::string engine;
          std::string engine_version;
          std::int64_t max_model_len = 0;
          std::int64_t min_tokens = 0;
          std::string min_headroom;
          std::string format = "table";
          bool all = false;
          int threads = 0;
          std::string output;
          std::string calibration;
        };
        auto o = std::make_shared<Options>();
        add_download_flag(app, o->download);
        app.add_option("model", o->model, "the model as a launch command names it")->required();
        app.add_option("--gpus", o->gpus, "the GPU type and how many there are: h200x8")
            ->required();
        app.add_option("--engine", o->engine, "sglang or vllm (default: both)");
        add_engine_version_option(
            app, o->engine_version,
            "the engine release (with --engine; default: the newest modelled)");
        app.add_option("--max-model-len", o->max_model_len,
                       "the longest request (vLLM --max-model-len, SGLang --context-length)")
            ->check(CLI::PositiveNumber);
        app.add_option("--min-tokens", o->min_tokens,
                       "a layout qualifies only with this many KV tokens over its replicas")
            ->check(CLI::NonNegativeNumber);
        add_min_headroom_option(app, o->min_headroom);
        app.add_option("--format", o->format, "table or json")
            ->check(CLI::IsMember({"table", "json"}));
        app.add_flag("--all", o->all, "list the layouts an engine refuses too");
        app.add_option("-j,--jobs", o->threads, "threads (default: every core)")
            ->check(CLI::PositiveNumber);
        app.add_option("-o,--output", o->output, "write to this file instead of stdout");
        app.add_option("--calibration", o->calibration,
                       "calibration entry (default: the one matching the GPU)");
        return [o, &global]() -> ExitCode {
          Diagnostics diags;
          if (!output_allowed("-o", o->output, {}, diags)) return report_diagnostics(diags);
          std::optional<Workspace> ws = open_workspace(global, diags, o->download);
          if (!ws) return report_diagnostics(diags);
          PlanRequest request;
          request.model = o->model;
          request.engine_version = o->engine_version;
          if (o->max_model_len > 0) request.max_model_len = o->max_model_len;
          request.min_tokens = o->min_tokens;
          if (std::optional<Bytes> h = read_min_headroom(o->min_headroom, diags)) {
            request.min_headroom = *h;
          }
          if (o->engine.empty()) {
            if (!o->engine_version.empty()) {
              diags.error({"--engine-version", 0, 0},
                          "a release belongs to one engine: give --engine too");
            }
            for (const EngineModel* e : engine_models()) request.engines.push_back(e);
          } else {
            Scenario named;
            named.engine.name = o->engine;
            named.engine.name_loc = {"--engine", 0, 0};
            if (const EngineModel* e = engine_of(named, diags)) request.engines = {e};
          }
          if (std::optional<GpuCount> g = parse_gpu_option(o->gpus, ws->gpus, diags)) {
            request.gpu = g->gpu;
            request.max_gpus = g->count;
            if (g->count == 0 || g->count > kMaxPlanGpus) {
              diags.error({"--gpus", 0, 0}, "--gpus needs a count from 1 to " +
                                                std::to_string(kMaxPlanGpus) +
                                                " after the GPU, as " + o->gpus + "x8");
            }
          }
          if (!diags.empty()) return report_diagnostics(diags);
          Scenario on_gpu;
          on_gpu.hardware.gpu = request.gpu;
          std::optional<SimulationConstants> constants =
              choose_calibration(*ws, on_gpu, o->calibration, diags);
          if (!constants) return report_diagnostics(diags);
          request.threads =
              o->threads > 0 ? o->threads
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
          std::optional<Plan> plan = make_plan(request, ws->gpus, ws->models, *constants, diags);
          if (!plan) return report_diagnostics(diags);
          const std::string text = o->format == "json" ? render_plan_json(*plan, request)
                                                       : render_plan_table(*plan, request, o->all);
          if (o->output.empty()) {
            std::fputs(text.c_str(), stdout);
          } else if (Status w = write_file_atomically(o->output, text); !w.ok()) {
            std::fprintf(stderr, "%s\n", w.message().c_str());
            return kExitBadInput;
          }
          const bool any = std::any_of(plan->layouts.begin(), plan->layouts.end(),
                                       [](const PlannedLayout& p) { return p.qualifies; });
          return any ? kExitOk : kExitDoesNotFit;
        };
      }};
}

}  // namespace gpumem::cli
