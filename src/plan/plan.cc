#include "plan/plan.h"

#include <algorithm>

#include "engine/model_resolution.h"
#include "launch/launch_command.h"
#include "launch/launch_scenario.h"
#include "sweep/sweep.h"

namespace gpumem {
namespace {

// Every TP x PP x DP = n for n = 1..max_gpus: TP largest first (the layout most users try
// first), then PP, each with expert parallelism as a second variant for an MoE model.
std::vector<GpuLayout> layouts(int max_gpus, bool moe) {
  std::vector<GpuLayout> out;
  for (int n = 1; n <= max_gpus; ++n) {
    for (int tp = n; tp >= 1; --tp) {
      if (n % tp != 0) continue;
      for (int pp = 1; pp <= n / tp; ++pp) {
        if ((n / tp) % pp != 0) continue;
        const GpuLayout l{tp, pp, n / tp / pp, false};
        out.push_back(l);
        if (moe && tp > 1) out.push_back({tp, pp, l.dp, true});
      }
    }
  }
  return out;
}

// The request-length flag of `engine` (its fit advice's length lever).
std::string length_flag(const EngineModel& engine, const std::string& version) {
  Scenario s;
  s.engine.name = std::string(engine.name());
  s.engine.version = version.empty() ? engine.newest_release() : version;
  for (const FitKnob& k : engine.fit_knobs(s)) {
    if (k.kind == FitKnob::Kind::kMaxLength) return k.flag;
  }
  return "";
}

std::string errors_of(const Diagnostics& diags) {
  std::string out;
  for (const Diagnostic& d : diags.errors()) out += (out.empty() ? "" : "; ") + d.message;
  return out;
}

}  // namespace

std::optional<Plan> make_plan(const PlanRequest& request, const GpuCatalog& gpus,
                              const ModelCatalog& models, const SimulationConstants& constants,
                              Diagnostics& diags) {
  // MODEL is a model reference as `model:` is (a slug, an id, a path, the local cache).
  const std::optional<ResolvedModel> resolved =
      resolve_model_reference(request.model, {"MODEL", 0, 0}, "", models, diags);
  if (!resolved) return std::nullopt;
  const Architecture* arch = &resolved->architecture;
  Plan plan;
  plan.moe = arch->moe.num_experts > 0;
  struct Candidate {
    std::optional<Scenario> scenario;
    std::string reason;
  };
  std::vector<Candidate> candidates;
  for (const EngineModel* engine : request.engines) {
    const std::string version =
        request.engine_version.empty() ? engine->newest_release() : request.engine_version;
    plan.engine_versions +=
        (plan.engine_versions.empty() ? "" : ", ") + std::string(engine->name()) + " " + version;
    for (const GpuLayout& l : layouts(request.max_gpus, plan.moe)) {
      PlannedLayout p;
      p.engine = engine;
      p.layout = l;
      p.launch = launch_argv(*engine, request.model);
      Candidate c;
      std::optional<std::vector<std::string>> flags = engine->layout_flags(l, c.reason);
      if (flags) {
        p.launch.insert(p.launch.end(), flags->begin(), flags->end());
        if (request.max_model_len) {
          p.launch.push_back(length_flag(*engine, request.engine_version));
          p.launch.push_back(std::to_string(*request.max_model_len));
        }
        Diagnostics layout_diags;
        std::optional<EngineLaunch> command = read_launch_command(p.launch, layout_diags);
        if (command) {
          c.scenario = scenario_from_launch(
              *command, {request.gpu + "x" + std::to_string(l.gpus()), request.engine_version},
              gpus, models, layout_diags);
        }
        if (!layout_diags.empty()) {
          c.scenario.reset();
          c.reason = errors_of(layout_diags);
        }
      }
      plan.layouts.push_back(std::move(p));
      candidates.push_back(std::move(c));
    }
  }
  SimulationCache cache;
  const SimulationInputs inputs{gpus, models, constants, &cache};
  sweep::SweepOptions options;
  options.threads = std::max(1, request.threads);
  sweep::run_points(
      candidates.size(), options,
      [&]() -> sweep::PointFunction {
        return [&](size_t i) {
          const Candidate& c = candidates[i];
          if (!c.scenario) return sweep::invalid_point(c.reason);
          Diagnostics point_diags;
          std::optional<Ledger> l = simulate_scenario(*c.scenario, inputs, point_diags);
          if (!l || !point_diags.empty()) return sweep::invalid_point(errors_of(point_diags));
          return sweep::summarize(*l, request.min_headroom);
        };
      },
      [&](size_t i, const sweep::PointResult& r) {
        PlannedLayout& p = plan.layouts[i];
        p.result = r;
        p.qualifies = r.status == sweep::PointStatus::kFits &&
                      r.kv_tokens_total.value_or(0) >= request.min_tokens;
      });
  return plan;
}

PlanPicks pick(const Plan& plan, const EngineModel& engine, int max_gpus) {
  PlanPicks picks;
  const auto tokens = [](const PlannedLayout* p) { return p->result.kv_tokens_total.value_or(0); };
  for (const PlannedLayout& p : plan.layouts) {
    if (p.engine != &engine || !p.qualifies) continue;
    const int n = p.layout.gpus();
    const PlannedLayout* f = picks.fewest_gpus;
    if (f == nullptr || n < f->layout.gpus() || (n == f->layout.gpus() && tokens(&p) > tokens(f))) {
      picks.fewest_gpus = &p;
    }
    const PlannedLayout* m = picks.most_tokens_on_all;
    if (n == max_gpus && (m == nullptr || tokens(&p) > tokens(m))) picks.most_tokens_on_all = &p;
  }
  return picks;
}

}  // namespace gpumem
