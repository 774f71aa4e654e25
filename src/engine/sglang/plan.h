// Everything an SGLang start-up needs, resolved once from a scenario: flags with SGLang's
// defaults filled in, the model and draft architectures, per pipeline stage the weight
// tensors and KV geometry, the custom all-reduce decision, the CUDA-graph shapes, and the
// values a real run pinned. Building the plan is where every scenario error that depends on
// the model is found; running it (startup.h) only allocates. A plan is reused unchanged for
// every rank and, in sweeps, for every evaluation that does not change it.
#ifndef GPUMEM_ENGINE_SGLANG_PLAN_H_
#define GPUMEM_ENGINE_SGLANG_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/plan_inputs.h"
#include "engine/sglang/custom_all_reduce.h"
#include "engine/sglang/environment.h"
#include "engine/sglang/flags.h"
#include "engine/sglang/graph_model.h"
#include "engine/sglang/kv_sizing.h"
#include "engine/sglang/mamba_cache.h"
#include "engine/sglang/model_facts.h"
#include "engine/sglang/server_defaults.h"
#include "engine/sglang/version.h"
#include "weights/cpu_offload.h"
#include "weights/parallel_layout.h"
#include "weights/weight_tensor.h"

namespace gpumem::sglang {

struct StagePlan {
  LayerRange layers;
  WeightList weights;  // one rank's tensors, in allocation order
  // --cpu-offload-gb: the parameters kept in CPU memory, which each forward copies back.
  Bytes offloaded_to_cpu = bytes(0);
  std::vector<OffloadedLayer> offloaded_layers;
  KvGeometry kv;
  WeightList draft_weights;  // EAGLE draft, when speculative decoding is on
  KvGeometry draft_kv;
};

struct Plan {
  std::string scenario;
  Version version;
  VersionRules rules;
  ServerFlags flags;
  Environment env;
  ResolvedArgs args;
  GpuSpec gpu;
  Architecture model;
  std::string weights_source;  // the weights_source fact (engine/model_resolution.h)
  // What was assumed to find the model (ResolvedModel::assumed); empty when it was named.
  std::string model_assumed;
  std::optional<Architecture> draft;
  ModelFacts facts;
  std::string served_dtype;  // "torch.bfloat16", as "Load weight end" prints it

  int tp = 1;
  int pp = 1;
  int replicas = 1;  // data-parallel engine copies (without DP attention)
  int attention_tp = 1;
  int nodes = 1;
  int gpus_per_node = 1;
  std::vector<Bytes> preoccupied;  // by global GPU index

  // The NCCL settings every communicator of the engine runs with: the scenario's NCCL_*
  // variables plus what SGLang sets itself.
  NcclSettings nccl;
  CustomAllReduceDecision custom_all_reduce;
  // Hybrid linear-attention models: one request slot's recurrent state (layers 0 otherwise).
  MambaStateShape mamba;
  GraphShape graph;               // max_bs before the capture-time filter against the req pool
  std::vector<StagePlan> stages;  // one per pipeline stage

  ScenarioObserved observed;

  int world_size() const { return tp * pp * replicas; }
  int pp_rank_of(int rank) const { return (rank % (tp * pp)) / tp; }
  int tp_rank_of(int rank) const { return rank % tp; }
};

// Resolves `scenario` (already read and engine-validated) against the catalogs. Errors go to
// `diags`, at the scenario location they concern.
std::optional<Plan> make_plan(const Scenario& scenario, const PlanInputs& in, Diagnostics& diags);

// sglang v0.5.9 cuda_graph_runner.py get_batch_sizes_to_capture: adds the req pool size when
// it is below the largest size, drops sizes above it, sorts and dedups.
std::vector<std::int64_t> batch_sizes_to_capture(std::vector<std::int64_t> bs,
                                                 std::int64_t req_pool_rows);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_PLAN_H_
