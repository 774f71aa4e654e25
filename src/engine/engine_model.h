// One interface per engine model, and the registry that finds them by name.
//
// Everything gpumem knows about an engine lives behind EngineModel: its name and the releases
// modelled, its flag and environment tables, the knobs the fit advice may turn, and — from a
// scenario — a PlannedStartup: the layout of its ranks, the scenario-wide facts it resolved,
// and the start-up program each rank runs over a Device and a Comm (simulated in sim/, real
// in probe/). Code outside src/engine asks find_engine(name) and never compares engine names;
// adding an engine or a release lands here and in the engine's own folder.
//
// Contract: find_engine returns a process-lifetime object (no ownership); plan() reports
// every error of the scenario in `diags` and returns null exactly when it reported one; a
// PlannedStartup's program(k) may run on any number of ranks and threads at once, and the
// PlannedStartup must outlive the runs.
#ifndef GPUMEM_ENGINE_ENGINE_MODEL_H_
#define GPUMEM_ENGINE_ENGINE_MODEL_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alloc/allocator_config.h"
#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "device/comm.h"
#include "engine/engine_constants.h"
#include "engine/flag_table.h"
#include "engine/plan_inputs.h"
#include "runtime/key_figures.h"
#include "runtime/ledger.h"
#include "runtime/rank_env.h"

namespace gpumem {

// How a command line starts the engine: a program and its subcommand (`vllm serve`), or a
// Python module run with `python -m` (`sglang.launch_server`).
struct LaunchForm {
  std::string_view program;       // "vllm"; empty for a module
  std::string_view subcommand;    // "serve"
  std::string_view module;        // "vllm.entrypoints.openai.api_server"
  bool model_positional = false;  // `vllm serve MODEL`
  // `--flag.key.sub value` sets one key of a JSON-valued flag, the keys of one flag merged
  // into one object (vLLM's FlexibleArgumentParser: `-cc.cudagraph_mode=FULL`).
  bool dotted_json_keys = false;
  // The container image whose ENTRYPOINT is this form, so that what follows the image in a
  // `docker run` is this form's arguments ("vllm/vllm-openai").
  std::string_view image = {};
};

// A lever the fit advice may move to make a start-up fit.
struct FitKnob {
  enum class Kind {
    kMemoryFraction,  // the nearest fraction, in steps of 0.01
    kCount,           // the largest integer below the current one (graph sizes, sequences)
    kMaxLength,       // the longest request length below the current one, in steps of 1,024
    kSwitch,          // one other value (a bare boolean flag, a smaller KV dtype)
    kOffload,         // the fewest whole GiB above the current value (weights moved to CPU)
  };
  Kind kind = Kind::kMemoryFraction;
  std::string flag;                   // as the engine spells it: "--mem-fraction-static"
  std::string current_fact;           // id of the ledger fact holding its value in this start-up
  int max_percent = 99;               // kMemoryFraction: the largest value the engine accepts, in %
  std::vector<std::string> replaces;  // kCount: flags a new value makes obsolete
  std::string value;                  // kSwitch: the value tried ("true" for a bare flag)
  std::string instead_of;             // kSwitch: what the start-up has now ("off", "auto")
  // kCount: a value no larger one improves on (SGLang drops graph sizes above its request
  // pool, so larger ones capture the same graphs); 0 when values are not bounded so.
  std::int64_t bound = 0;
  // Searched only for a start-up that fails at this step ("": whatever the step). An offload
  // is the lever for weights that do not fit, not for a KV cache it would buy with speed.
  std::string failing_step;

  static FitKnob fraction(std::string flag, std::string_view fact, int max_percent) {
    return {
        Kind::kMemoryFraction, std::move(flag), std::string(fact), max_percent, {}, {}, {}, 0, {}};
  }
  static FitKnob count(std::string flag, std::string_view fact,
                       std::vector<std::string> replaces = {}) {
    return {
        Kind::kCount, std::move(flag), std::string(fact), 0, std::move(replaces), {}, {}, 0, {}};
  }
  static FitKnob max_length(std::string flag, std::string_view fact) {
    return {Kind::kMaxLength, std::move(flag), std::string(fact), 0, {}, {}, {}, 0, {}};
  }
  static FitKnob toggle(std::string flag, std::string value, std::string instead_of) {
    return {Kind::kSwitch,    std::move(flag),       {}, 0, {},
            std::move(value), std::move(instead_of), 0,  {}};
  }
  static FitKnob offload(std::string flag, std::string failing_step) {
    return {Kind::kOffload, std::move(flag), {}, 0, {}, {}, {}, 0, std::move(failing_step)};
  }
};

// How a model is spread over GPUs: tensor, pipeline and data parallel sizes, and whether a
// mixture-of-experts model shards its experts over the tensor-parallel GPUs (expert
// parallelism) instead of slicing each expert.
struct GpuLayout {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  bool expert_parallel = false;
  int gpus() const { return tp * pp * dp; }
};

// A scenario's start-up as its engine plans it.
class PlannedStartup {
 public:
  virtual ~PlannedStartup() = default;
  virtual std::string engine_label() const = 0;  // "sglang 0.5.9"
  virtual const GpuSpec& gpu() const = 0;
  virtual int world_size() const = 0;
  virtual int nodes() const = 0;
  virtual int gpus_per_node() const = 0;
  // By global GPU index: memory other processes hold before the engine starts.
  virtual const std::vector<Bytes>& preoccupied() const = 0;
  // Ranks of one class run the same program (their pipeline stage); the simulator runs one
  // rank per class and copies its ledger.
  virtual int rank_class(int rank) const = 0;
  // Scenario-wide facts: the flags as the engine resolved them.
  virtual std::vector<Fact> facts() const = 0;
  // NCCL as the engine sets it up (the probe checks its environment against it).
  virtual const NcclSettings& nccl() const = 0;
  // The caching allocator's settings in the engine's processes (PYTORCH_CUDA_ALLOC_CONF).
  virtual const AllocatorConfig& allocator() const = 0;
  virtual RankProgram program(const EngineConstants& constants) const = 0;
};

class EngineModel {
 public:
  virtual ~EngineModel() = default;
  virtual std::string_view name() const = 0;          // "sglang": the scenario's engine.name
  virtual std::string_view title() const = 0;         // "SGLang": as users write it
  virtual std::string releases_modelled() const = 0;  // "0.5.9 to 0.5.18"
  virtual std::string newest_release() const = 0;
  virtual std::span<const FlagSpec> flags() const = 0;
  // A flag as written ("--max_model_len") in the table's spelling ("--max-model-len").
  virtual std::string canonical_flag(std::string_view flag) const = 0;
  // A spelling whose flag depends on the release (vLLM's "-O"), which a launch command keeps as
  // written for the engine to read once the release is known.
  virtual bool spelling_depends_on_release(std::string_view flag) const = 0;
  virtual std::span<const std::string_view> environment() const = 0;  // variables modelled
  // Reads `engine`'s environment; every problem goes to `diags`.
  virtual void check_environment(const ScenarioEngine& engine, Diagnostics& diags) const = 0;
  virtual std::vector<FitKnob> fit_knobs(const Scenario& scenario) const = 0;
  // The command lines that start this engine, and the flags that name the model it serves.
  virtual std::vector<LaunchForm> launch_forms() const = 0;
  virtual std::vector<std::string_view> model_flags() const = 0;
  // GPUs a launch with `engine`'s flags occupies (its parallel layout); 0 when they cannot be
  // read (the plan then reports why).
  virtual int gpus_used(const ScenarioEngine& engine) const = 0;
  // The flags that ask for `layout`, as a launch command writes them; nothing, with the
  // reason in `not_modelled`, for a layout gpumem does not model for this engine.
  virtual std::optional<std::vector<std::string>> layout_flags(const GpuLayout& layout,
                                                               std::string& not_modelled) const = 0;
  virtual std::unique_ptr<PlannedStartup> plan(const Scenario& scenario, const PlanInputs& in,
                                               Diagnostics& diags) const = 0;
  // The quantities this engine logs, which a scenario's `observed:` may pin.
  virtual std::span<const std::string_view> observed_keys() const = 0;
  // The table entry a flag as written denotes (an alias, an argparse prefix, underscores);
  // null when it denotes none, or several.
  const FlagSpec* flag_spec(std::string_view flag) const;
  // The scenario's argument for the flag the table spells `name`, however it was written;
  // null when the scenario does not give it.
  const EngineArg* scenario_arg(const Scenario& scenario, std::string_view name) const;
  // The engine-neutral figures of a ledger this engine produced.
  KeyFigures key_figures(const Ledger& ledger) const { return gpumem::key_figures(ledger); }
};

// The engine model called `name`, or null.
const EngineModel* find_engine(std::string_view name);
// Every engine model, in name order.
std::span<const EngineModel* const> engine_models();
// "sglang and vllm".
std::string engine_names();
// The engine of `scenario`, or null after "engine 'x' is not modelled; gpumem models sglang
// and vllm; did you mean ...?" at the scenario's engine name.
const EngineModel* engine_of(const Scenario& scenario, Diagnostics& diags);
// Reports each `observed:` key of `scenario` that `engine` does not log: "'x' is measured by
// vLLM; this scenario runs sglang". False when it reported one.
bool check_observed_keys(const Scenario& scenario, const EngineModel& engine, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ENGINE_MODEL_H_
