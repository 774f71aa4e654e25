#include "probe/scenario_run.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "alloc/caching_allocator.h"
#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/exit_codes.h"
#include "engine/engine_model.h"
#include "probe/atomic_file.h"
#include "probe/facts_runner.h"
#include "probe/host_exchange.h"
#include "probe/nccl_env.h"
#include "probe/provenance.h"
#include "probe/rank_runtime.h"
#include "probe/supervisor.h"
#include "probe/trace_recorder.h"
#include "runtime/ledger_json.h"
#include "runtime/rank_env.h"

namespace gpumem::probe {
namespace {

using nlohmann::json;

// /2: facts carry an id and a label (runtime/fact_ids.h); v1 traces keyed them by label.
constexpr char kTraceFormat[] = "gpumem.trace/2";

struct Loaded {
  Scenario scenario;
  std::unique_ptr<PlannedStartup> plan;
};

// Reads the catalogs, the scenario and the engine's plan, exactly as `gpumem simulate` does.
std::optional<Loaded> load(const ScenarioRunOptions& o) {
  Diagnostics diags;
  Result<GpuCatalog> gpus = GpuCatalog::load(o.model_dir + "/gpu", diags);
  Result<ModelCatalog> models = ModelCatalog::open(o.model_dir + "/llm");
  if (!gpus.ok() || !models.ok()) {
    std::fprintf(stderr, "gpumem-probe: cannot read the catalogs in %s: %s\n", o.model_dir.c_str(),
                 (!gpus.ok() ? gpus.status() : models.status()).message().c_str());
    return std::nullopt;
  }
  std::optional<Scenario> s = load_scenario(o.scenario, *gpus, diags);
  std::unique_ptr<PlannedStartup> plan;
  if (s && diags.empty()) {
    if (const EngineModel* engine = engine_of(*s, diags)) {
      plan = engine->plan(*s, PlanInputs{*gpus, *models}, diags);
    }
  }
  if (!diags.empty() || !plan) {
    std::fputs(diags.to_string().c_str(), stderr);
    return std::nullopt;
  }
  return Loaded{std::move(*s), std::move(plan)};
}

std::chrono::milliseconds grace() { return std::chrono::milliseconds(5000); }

}  // namespace

int launch_scenario(const ScenarioRunOptions& o) {
  std::optional<Loaded> loaded = load(o);
  if (!loaded) return kExitBadInput;
  const PlannedStartup& plan = *loaded->plan;
  if (plan.nodes() > 1) {
    std::fprintf(stderr,
                 "gpumem-probe: %s spans %d nodes; start one rank per GPU with torchrun or "
                 "mpirun on every node instead\n",
                 o.scenario.c_str(), plan.nodes());
    return kExitBadInput;
  }
  install_stop_handlers();
  Result<std::string> self = self_executable();
  if (!self.ok()) {
    std::fprintf(stderr, "gpumem-probe: %s\n", self.status().message().c_str());
    return kExitInternal;
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  Result<int> gpus = count_gpus_in_child(*self, o.out_dir, o.timeout);
  std::filesystem::remove(std::filesystem::path(o.out_dir) / "count_gpus.json", ec);
  if (!gpus.ok()) {
    std::fprintf(stderr, "gpumem-probe: %s\n", gpus.status().message().c_str());
    return kExitInternal;
  }
  const int world = plan.world_size();
  if (*gpus < world) {
    std::fprintf(stderr, "gpumem-probe: %s needs %d GPUs, this machine shows %d\n",
                 o.scenario.c_str(), world, *gpus);
    return kExitBadInput;
  }
  // The engine's NCCL environment: what NCCL must read for the plan's settings to hold.
  Result<std::vector<NcclEnvExpectation>> nccl = nccl_env_expectations(plan.nccl());
  if (!nccl.ok()) {
    std::fprintf(stderr, "gpumem-probe: %s\n", nccl.status().message().c_str());
    return kExitBadInput;
  }
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::string> unset;
  for (const EnvVar& v : loaded->scenario.engine.env) set.emplace_back(v.name, v.value);
  for (const auto& [name, value] : *nccl) {
    std::erase_if(set, [&](const auto& kv) { return kv.first == name; });
    if (value) {
      set.emplace_back(name, *value);
    } else {
      unset.push_back(name);
    }
  }
  Result<int> port = find_free_port();
  if (!port.ok()) {
    std::fprintf(stderr, "gpumem-probe: %s\n", port.status().message().c_str());
    return kExitInternal;
  }
  JobSpec job;
  job.name = "run " + loaded->scenario.name;
  job.timeout = o.timeout * 4;
  for (int r = 0; r < world; ++r) {
    std::vector<std::pair<std::string, std::string>> rank_set = set;
    rank_set.insert(rank_set.end(), {{"RANK", std::to_string(r)},
                                     {"WORLD_SIZE", std::to_string(world)},
                                     {"LOCAL_RANK", std::to_string(r)},
                                     {"MASTER_ADDR", "127.0.0.1"},
                                     {"MASTER_PORT", std::to_string(*port)},
                                     {std::string(kProbeLauncherVar), "fork"}});
    job.children.push_back(
        ChildSpec{fmt::format("rank {}", r),
                  {*self, "run", o.scenario, "--out", o.out_dir, "--model-dir", o.model_dir,
                   "--timeout", std::to_string(o.timeout.count() / 1000)},
                  environment_with(rank_set, unset)});
  }
  std::fprintf(stderr, "gpumem-probe: %s: starting %d rank(s)\n", loaded->scenario.name.c_str(),
               world);
  const JobOutcome outcome = run_job(std::move(job), grace());
  if (outcome.state != JobState::kOk) {
    std::fprintf(stderr, "gpumem-probe: %s %s: %s\n", loaded->scenario.name.c_str(),
                 std::string(job_state_name(outcome.state)).c_str(), outcome.message.c_str());
    return kExitInternal;
  }
  std::fprintf(stderr, "gpumem-probe: %s done in %.1f s; traces in %s\n",
               loaded->scenario.name.c_str(), outcome.wall_s, o.out_dir.c_str());
  return kExitOk;
}

int run_scenario_rank(const RankEnv& env, const ScenarioRunOptions& o) {
  std::optional<Loaded> loaded = load(o);
  if (!loaded) return kExitBadInput;
  const PlannedStartup& plan = *loaded->plan;
  if (env.world_size != plan.world_size()) {
    std::fprintf(stderr, "gpumem-probe: WORLD_SIZE is %d but %s uses %d GPUs\n", env.world_size,
                 o.scenario.c_str(), plan.world_size());
    return kExitBadInput;
  }
  Result<std::unique_ptr<RankRuntime>> started = RankRuntime::start(env, o.timeout);
  if (!started.ok()) {
    std::fprintf(stderr, "gpumem-probe rank %d: %s\n", env.rank,
                 started.status().message().c_str());
    return kExitInternal;
  }
  RankRuntime& rt = **started;
  AllocatorConfig config = plan.allocator();
  config.device_index = env.local_rank;
  CachingAllocator allocator(rt.device(), config);
  TraceRecorder recorder(rt, allocator);
  std::vector<Fact> facts;
  gpumem::RankEnv renv{env.rank,    env.world_size, env.local_rank, env.rank / plan.gpus_per_node(),
                       rt.device(), rt.comm(),      allocator,      recorder,
                       facts};
  // The engines' published constants: a probe run measures, it is never calibrated.
  const EngineConstants constants;
  plan.program(constants)(renv);

  const Interconnect native = plan.gpu().interconnect;
  const Interconnect modelled =
      loaded->scenario.hardware.interconnect.value_or(plan.gpu().interconnect);
  json trace = {{"format", kTraceFormat},
                {"scenario", loaded->scenario.name},
                {"scenario_file", o.scenario},
                {"engine", plan.engine_label()},
                {"gpu_type", plan.gpu().name},
                {"rank", env.rank},
                {"world_size", env.world_size},
                {"local_rank", env.local_rank},
                {"launcher", std::string(launcher_name(env.launcher))},
                {"interconnect_modelled", std::string(interconnect_name(modelled))},
                {"emulated", modelled != native},
                {"provenance", collect_provenance(rt)},
                {"initial", to_json(recorder.initial())},
                {"steps", recorder.steps()},
                {"facts", json::parse(facts_to_json(facts).dump())}};
  const std::filesystem::path file =
      std::filesystem::path(o.out_dir) / fmt::format("trace.rank{}.json", env.rank);
  const Status written = write_json_atomically(file, trace);
  const Status down = rt.shutdown();
  if (!written.ok()) {
    std::fprintf(stderr, "gpumem-probe rank %d: %s\n", env.rank, written.message().c_str());
    return kExitInternal;
  }
  if (!down.ok()) rt.log("shutdown: " + down.message());
  return kExitOk;
}

}  // namespace gpumem::probe
