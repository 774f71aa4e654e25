#include "probe/facts_worker.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "core/exit_codes.h"
#include "probe/atomic_file.h"
#include "probe/cuda_error.h"
#include "probe/provenance.h"

namespace gpumem::probe {
namespace {

using nlohmann::json;

Status dispatch(const WorkerOptions& o, RankRuntime& rt, json& data) {
  switch (o.kind) {
    case FactKind::kProvenance:
      return measure_provenance(rt, data);
    case FactKind::kContext:
      return measure_context(rt, o.index, data);
    case FactKind::kMalloc:
      return measure_malloc(rt, o.index, data);
    case FactKind::kCuMem:
      return measure_cumem(rt, data);
    case FactKind::kGraphNodes:
      return measure_graph_nodes(rt, data);
    case FactKind::kCublas:
      return measure_cublas(rt, data);
    case FactKind::kIpc:
      return measure_ipc(rt, data);
    case FactKind::kNccl:
      return measure_nccl(rt, o.index, data);
    case FactKind::kGraphNccl:
      return measure_graph_nccl(rt, o.index, data);
    case FactKind::kCountGpus:
      break;
  }
  return internal_error(fmt::format("no measurement for kind {}", fact_kind_name(o.kind)));
}

int finish(const WorkerOptions& o, json result, const Status& s) {
  result["ok"] = s.ok();
  result["error"] = s.ok() ? json(nullptr) : json(s.message());
  result["pid"] = static_cast<int>(::getpid());
  result["env"] = nccl_cuda_environment();
  if (Status w = write_json_atomically(o.result, result); !w.ok()) {
    std::fprintf(stderr, "gpumem-probe worker: %s\n", w.message().c_str());
    return kExitInternal;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "gpumem-probe worker %s: %s\n",
                 std::string(fact_kind_name(o.kind)).c_str(), s.message().c_str());
  }
  return s.ok() ? kExitOk : kExitInternal;
}

}  // namespace

int run_worker(const WorkerOptions& o) {
  json result = json::object();
  result["kind"] = fact_kind_name(o.kind);
  result["index"] = o.index;
  if (o.kind == FactKind::kCountGpus) {
    // The runner's first question, answered in a process of its own so that the runner
    // itself never initialises CUDA.
    int count = 0;
    const Status s = check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    result["data"] = {{"count", s.ok() ? count : 0}};
    return finish(o, std::move(result), s);
  }
  auto env = rank_env_from(process_env());
  if (!env.ok() || !env->has_value()) {
    const Status s = env.ok() ? invalid_input(
                                    "a worker needs RANK, WORLD_SIZE, LOCAL_RANK, "
                                    "MASTER_ADDR and MASTER_PORT")
                              : env.status();
    return finish(o, std::move(result), s);
  }
  result["rank"] = (*env)->rank;
  result["world_size"] = (*env)->world_size;
  result["local_rank"] = (*env)->local_rank;
  auto rt = RankRuntime::start(**env, o.timeout);
  if (!rt.ok()) return finish(o, std::move(result), rt.status());
  json data = json::object();
  Status s = dispatch(o, **rt, data);
  const Status down = (*rt)->shutdown();
  if (s.ok()) s = down;
  result["data"] = std::move(data);
  return finish(o, std::move(result), s);
}

Status measure_provenance(RankRuntime& rt, json& data) {
  data = collect_provenance(rt);
  return Status::ok_status();
}

}  // namespace gpumem::probe
