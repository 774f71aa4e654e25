// Everything a vLLM start-up needs, resolved once from a scenario: flags with vLLM's
// defaults filled in, the model (and EAGLE-3 draft) architecture, per pipeline stage the
// weight tensors and KV-cache layout, the all-reduce helpers, the CUDA-graph sizes, and the
// values a real run pinned. Building the plan is where every scenario error that depends on
// the model is found; running it (startup.h) only allocates.
#ifndef GPUMEM_ENGINE_VLLM_PLAN_H_
#define GPUMEM_ENGINE_VLLM_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/plan_inputs.h"
#include "engine/vllm/activation_model.h"
#include "engine/vllm/custom_all_reduce.h"
#include "engine/vllm/encoder_profile.h"
#include "engine/vllm/engine_defaults.h"
#include "engine/vllm/environment.h"
#include "engine/vllm/flags.h"
#include "engine/vllm/kv_sizing.h"
#include "engine/vllm/model_facts.h"
#include "engine/vllm/model_runner.h"
#include "engine/vllm/version.h"
#include "weights/parallel_layout.h"
#include "weights/weight_tensor.h"

namespace gpumem::vllm {

struct StagePlan {
  LayerRange layers;
  WeightList weights;                  // one rank's tensors, in allocation order
  WeightList draft_weights;            // the EAGLE-3 head, loaded after the target
  Bytes offloaded_to_cpu;              // --cpu-offload-gb: decoder-layer weights in CPU memory
  std::vector<KvLayerSpec> kv_layers;  // the target's layers, then the draft's
  KvCacheLayout kv;
};

struct Plan {
  std::string scenario;
  Version version;
  VersionRules rules;
  EngineFlags flags;
  Environment env;
  ResolvedArgs args;
  GpuSpec gpu;
  Architecture model;
  std::string weights_source;  // the weights_source fact (engine/model_resolution.h)
  // What was assumed to find the model (ResolvedModel::assumed); empty when it was named.
  std::string model_assumed;
  std::optional<Architecture> draft;
  ModelFacts facts;

  int tp = 1;
  int pp = 1;
  int dp = 1;  // engine cores (data-parallel ranks), each a TP x PP world
  int ep = 1;
  int nodes = 1;
  int gpus_per_node = 1;
  std::vector<Bytes> preoccupied;  // by global GPU index

  // The NCCL settings every communicator runs with: the scenario's NCCL_* variables plus
  // what vLLM sets itself.
  NcclSettings nccl;
  AllReducePlan all_reduce;
  ModelRunnerChoice runner;
  // The pre-KV CUDA-graph estimate runs (vllm v1/worker/gpu_worker.py determine_available_memory
  // from v0.17.0: whenever CUDA graphs will be captured; Model Runner V2's from v0.29.0) ...
  bool estimate_cudagraphs = false;
  // ... and is charged to the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, on by default
  // from v0.21.0); uncharged, vLLM prints the utilization that would make up for it.
  bool charge_cudagraph_estimate = false;
  ForwardShape shape;
  // A multimodal model's encoder run by the memory profile; its language model then reads
  // the model runner's inputs_embeds buffer instead of embedding token ids.
  std::optional<EncoderProfile> encoder;
  // vLLM's RMSNorm runs its PyTorch-native forward, out of place, instead of the fused CUDA
  // kernel: custom ops are off by default under Inductor (custom_op_runs_native).
  bool native_rms_norm = false;
  // ... and QuickGELU (LLaVA's CLIP) its native x * sigmoid(1.702 * x), out of place.
  bool native_quick_gelu = false;
  std::vector<StagePlan> stages;  // one per pipeline stage

  ScenarioObserved observed;

  // vllm v0.21 distributed/parallel_state.py initialize_model_parallel lays ranks out as
  // (DP, PP, TP).
  int world_size() const { return dp * tp * pp; }
  int pp_rank_of(int rank) const { return rank / tp % pp; }
  int tp_rank_of(int rank) const { return rank % tp; }
};

// Resolves `scenario` (already read) against the catalogs. Errors go to `diags`, at the
// scenario location they concern.
std::optional<Plan> make_plan(const Scenario& scenario, const PlanInputs& in, Diagnostics& diags);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_PLAN_H_
