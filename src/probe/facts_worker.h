// The measuring half of `gpumem-probe facts`: one worker process per rank of one
// measurement (facts_plan.h), started by the facts runner with the rank variables set.
//
// A worker sets up its rank (NVML first, then the host exchange; CUDA only when the
// measurement starts), runs one measurement, shuts its communicators and memory down and
// writes one JSON result, atomically: {"ok", "error", "rank", "world_size", "local_rank",
// "pid", "env", "data"}. "data" holds what was measured, also when a later step of the
// measurement failed. The exit code is 0 when the measurement succeeded.
#ifndef GPUMEM_PROBE_FACTS_WORKER_H_
#define GPUMEM_PROBE_FACTS_WORKER_H_

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "probe/facts_plan.h"
#include "probe/rank_runtime.h"

namespace gpumem::probe {

struct WorkerOptions {
  FactKind kind = FactKind::kCountGpus;
  int index = 0;
  std::filesystem::path result;
  std::chrono::milliseconds timeout{60'000};
};

int run_worker(const WorkerOptions& options);

// The measurements, one per FactKind. Each fills `data` as it goes.
Status measure_provenance(RankRuntime& rt, nlohmann::json& data);
Status measure_context(RankRuntime& rt, int index, nlohmann::json& data);
Status measure_malloc(RankRuntime& rt, int index, nlohmann::json& data);
Status measure_cumem(RankRuntime& rt, nlohmann::json& data);
Status measure_graph_nodes(RankRuntime& rt, nlohmann::json& data);
Status measure_cublas(RankRuntime& rt, nlohmann::json& data);
Status measure_ipc(RankRuntime& rt, nlohmann::json& data);
Status measure_nccl(RankRuntime& rt, int index, nlohmann::json& data);
Status measure_graph_nccl(RankRuntime& rt, int index, nlohmann::json& data);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_FACTS_WORKER_H_
