// A scenario: one what-if start-up — hardware, engine (version, flags, environment), model,
// and optionally values measured on a real run that override the simulator's predictions.
//
// This layer reads and checks what is engine-independent (types, units, known keys, GPU
// and model names exist). Engine flags are kept as written, with their locations, because
// only an engine model knows their meaning; it validates them in its own pass
// (src/engine). Nothing here has defaults that hide a missing value: absent optional
// fields are std::nullopt.
//
// File format: scenarios/README.md.
#ifndef GPUMEM_CATALOG_SCENARIO_H_
#define GPUMEM_CATALOG_SCENARIO_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "core/diagnostics.h"
#include "core/units.h"

namespace gpumem {

// One engine flag as written: `--tp-size: 8` or `--cuda-graph-bs: [1, 2, 4]`.
struct EngineArg {
  std::string flag;                 // with its leading dashes
  std::vector<std::string> values;  // one item for a scalar; the items of a list
  bool is_list = false;
  SourceLoc flag_loc;
  SourceLoc value_loc;
};

struct EnvVar {
  std::string name;
  std::string value;
  SourceLoc loc;        // of the name
  SourceLoc value_loc;  // of the value
};

struct ScenarioHardware {
  std::string gpu;
  SourceLoc gpu_loc;
  int gpus_per_node = 0;
  SourceLoc count_loc;
  int nodes = 1;
  std::optional<Interconnect> interconnect;  // absent: the GPU type's own
  // Memory other processes hold on a GPU before the engine starts, by GPU index.
  std::map<int, Bytes> preoccupied;
};

struct ScenarioEngine {
  std::string name;  // "sglang" | "vllm"
  SourceLoc name_loc;
  std::string version;
  SourceLoc version_loc;
  std::vector<EngineArg> args;
  std::vector<EnvVar> env;
  // Source patches of the engine that no flag expresses (e.g. the seed's forced custom
  // all-reduce on PCIe); names are checked by the engine model.
  std::vector<std::string> patches;
  std::vector<SourceLoc> patch_locs;
  // How the engine is started: "serve", its server (the default), or "offline", vLLM's
  // Python LLM class (UsageContext.LLM_CLASS), whose batch defaults are larger; the engine
  // model checks the value.
  std::string entry = "serve";
  SourceLoc entry_loc;

  const EngineArg* arg(std::string_view flag) const;
  const EnvVar* env_var(std::string_view name) const;
};

// `model:` as written; both fields empty when the scenario leaves the model to the engine's
// own flag (--model-path, --model).
struct ScenarioModel {
  // Set when `model: <reference>`: a catalog slug, a repository id `org/name`, or a path to a
  // config.json or a checkpoint directory (catalog/model_reference.h).
  std::string catalog_name;
  std::string hf_config_path;  // set when `model: {hf_config: path}`; relative to the file
  SourceLoc loc;

  bool given() const { return !catalog_name.empty() || !hf_config_path.empty(); }
};

// Values measured on a real run. Each replaces the simulator's prediction of that quantity.
// The keys are the engine's own measurements: SGLang's for sglang scenarios, vLLM's for vllm.
struct ScenarioObserved {
  std::optional<Bytes> free_before_weights;  // SGLang F: world-MIN free memory before loading
  std::optional<Bytes> free_after_weights;   // SGLang A: world-MIN free memory after loading
  std::optional<Bytes> weight_load_usage;    // "Load weight end … mem usage"
  std::optional<Bytes> model_loading;        // vLLM "Model loading took … GiB"
  std::optional<Bytes> activation_peak;      // vLLM "… GiB for peak activation"
  std::optional<Bytes> non_torch_memory;     // vLLM "… GiB for non-torch memory"
  std::optional<Bytes> cuda_graph_estimate;  // vLLM "Estimated CUDA graph memory: … GiB"
  // vLLM "Available KV cache memory: … GiB" (or the exact "Current kv cache memory in use is
  // … bytes"): replaces the budget's result, not the budget (unlike --kv-cache-memory, the
  // profile and its log lines stay as they are).
  std::optional<Bytes> kv_cache_memory;
  SourceLoc loc;
  // Each key the scenario gives ("model_loading") and where: an engine refuses the
  // quantities another engine measures.
  std::vector<std::pair<std::string, SourceLoc>> given;
};

struct Scenario {
  std::string file;
  std::string name;  // the file's stem unless `name:` is given
  std::string description;
  ScenarioHardware hardware;
  ScenarioEngine engine;
  ScenarioModel model;
  ScenarioObserved observed;
  std::optional<std::string> calibration;  // pin a model/calibration entry by name
  SourceLoc calibration_loc;

  int total_gpus() const { return hardware.gpus_per_node * hardware.nodes; }
};

// Parses `text` (the contents of `file`) and checks everything engine-independent against
// `gpus`. Returns nullopt only when the file is not a readable mapping; otherwise the
// scenario as far as it could be read, so later passes (the engine's checks) report their
// errors too. A scenario is usable only if `diags` stayed empty.
std::optional<Scenario> parse_scenario(const std::string& file, const std::string& text,
                                       const GpuCatalog& gpus, Diagnostics& diags);
std::optional<Scenario> load_scenario(const std::string& path, const GpuCatalog& gpus,
                                      Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_SCENARIO_H_
