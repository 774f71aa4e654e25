// `gpumem plan MODEL --gpus h200x8`: which parallel layouts of a model start on up to N GPUs
// of one kind, with the KV cache and headroom of each, and the fewest GPUs that start.
//
// Every layout TP x PP x DP = n for n = 1..N is tried, with expert parallelism as a second
// variant for a mixture-of-experts model, for each engine asked for: written as the launch
// command a user would type (launch/launch_command.h launch_argv plus the engine's layout
// flags, and the request length), read back into a scenario by the launch reader and
// simulated as `gpumem simulate` would. A layout the engine refuses (a TP size that does not
// divide the heads) or that gpumem does not model (vLLM data parallelism) is kept with its
// reason, so nothing is dropped without a word.
//
// A layout qualifies when it starts (with --min-headroom free at every step, when asked) and
// holds at least --min-tokens KV tokens over its data-parallel replicas.
#ifndef GPUMEM_PLAN_PLAN_H_
#define GPUMEM_PLAN_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "core/diagnostics.h"
#include "core/units.h"
#include "engine/engine_model.h"
#include "simulate/simulate.h"
#include "sweep/point_result.h"

namespace gpumem {

struct PlanRequest {
  std::string model;  // as a launch command names it
  std::string gpu;    // catalog name
  int max_gpus = 1;
  std::vector<const EngineModel*> engines;
  std::string engine_version;  // "" for each engine's newest modelled release
  std::optional<std::int64_t> max_model_len;
  std::int64_t min_tokens = 0;
  Bytes min_headroom = bytes(0);
  int threads = 1;
};

struct PlannedLayout {
  const EngineModel* engine = nullptr;
  GpuLayout layout;
  std::vector<std::string> launch;  // the command that asks for it
  sweep::PointResult result;        // kInvalid with the reason when not simulated
  bool qualifies = false;
};

struct Plan {
  std::string engine_versions;  // "sglang 0.5.18, vllm 0.21.0"
  bool moe = false;             // expert-parallel variants were tried
  std::vector<PlannedLayout> layouts;  // by engine, then GPUs, TP (largest first), PP, EP
};

// The layouts of `request`, simulated with `constants` (the GPU's calibration, as simulate
// chooses it). Nothing after an error in the request itself (unknown model, a GPU count above
// one node) reported in `diags`.
std::optional<Plan> make_plan(const PlanRequest& request, const GpuCatalog& gpus,
                              const ModelCatalog& models, const SimulationConstants& constants,
                              Diagnostics& diags);

// Per engine, the qualifying layout with the fewest GPUs (most KV tokens among equals), and
// the qualifying layout with the most KV tokens on all the GPUs asked for.
struct PlanPicks {
  const PlannedLayout* fewest_gpus = nullptr;
  const PlannedLayout* most_tokens_on_all = nullptr;
};
PlanPicks pick(const Plan& plan, const EngineModel& engine, int max_gpus);

}  // namespace gpumem

#endif  // GPUMEM_PLAN_PLAN_H_
