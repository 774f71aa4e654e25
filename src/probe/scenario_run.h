// `gpumem-probe run SCENARIO --out DIR`: an engine model's own start-up program, run on real
// GPUs, one process per rank, with a trace per rank (trace.rank<R>.json, format
// "gpumem.trace.v1", README.md here).
//
// Every rank reads the scenario and the catalogs itself and builds the same plan the
// simulator builds; the launcher starts one rank per GPU the scenario uses, with the NCCL
// environment the plan implies (the engine's own settings included), so that NCCL reads
// exactly what the model assumes.
#ifndef GPUMEM_PROBE_SCENARIO_RUN_H_
#define GPUMEM_PROBE_SCENARIO_RUN_H_

#include <chrono>
#include <string>

#include "probe/rank_env.h"

namespace gpumem::probe {

struct ScenarioRunOptions {
  std::string scenario;
  std::string out_dir;
  std::string model_dir;  // holds llm/ and gpu/
  std::chrono::milliseconds timeout{120'000};
};

// As the launcher: one child per rank of the scenario. Returns a process exit code.
int launch_scenario(const ScenarioRunOptions& options);

// As one rank (started by the launcher, torchrun or mpirun).
int run_scenario_rank(const RankEnv& env, const ScenarioRunOptions& options);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_SCENARIO_RUN_H_
