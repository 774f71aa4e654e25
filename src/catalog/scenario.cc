#include "catalog/scenario.h"

#include <filesystem>
#include <utility>

#include "catalog/yaml_reader.h"
#include "core/atomic_file.h"
#include "core/file_name.h"
#include "core/size_parse.h"
#include "core/spelling.h"

namespace gpumem {

const EngineArg* ScenarioEngine::arg(std::string_view flag) const {
  for (const EngineArg& a : args) {
    if (a.flag == flag) return &a;
  }
  return nullptr;
}

const EnvVar* ScenarioEngine::env_var(std::string_view var) const {
  for (const EnvVar& e : env) {
    if (e.name == var) return &e;
  }
  return nullptr;
}

namespace {

void read_hardware(MapReader& r, const GpuCatalog& gpus, ScenarioHardware& hw) {
  const std::string& file = r.file();
  if (std::optional<std::string> gpu = r.string("gpu", true)) {
    hw.gpu = *gpu;
    hw.gpu_loc = location(file, r.child("gpu"));
    if (gpus.find(*gpu) == nullptr) {
      r.error(r.child("gpu"), "unknown GPU '" + *gpu + "'" + did_you_mean(*gpu, gpus.names()));
    }
  }
  if (std::optional<std::int64_t> count = r.integer("count", true)) {
    hw.count_loc = location(file, r.child("count"));
    if (*count < 1 || *count > 64) {
      r.error(r.child("count"),
              "'count' (GPUs per node) must be between 1 and 64, got " + std::to_string(*count));
    } else {
      hw.gpus_per_node = static_cast<int>(*count);
    }
  }
  if (std::optional<std::int64_t> nodes = r.integer("nodes")) {
    if (*nodes < 1 || *nodes > 1024) {
      r.error(r.child("nodes"),
              "'nodes' must be between 1 and 1024, got " + std::to_string(*nodes));
    } else {
      hw.nodes = static_cast<int>(*nodes);
    }
  }
  if (std::optional<std::string> link = r.string("interconnect")) {
    if (*link == "nvlink") {
      hw.interconnect = Interconnect::kNvlink;
    } else if (*link == "pcie") {
      hw.interconnect = Interconnect::kPcie;
    } else {
      r.error(r.child("interconnect"),
              "'interconnect' must be nvlink or pcie, got '" + *link + "'");
    }
  }
  const GpuSpec* spec = hw.gpu.empty() ? nullptr : gpus.find(hw.gpu);
  if (YAML::Node pre = r.child("preoccupied"); pre.IsDefined()) {
    MapReader p(file, pre, "'preoccupied'", r.diags());
    if (p.valid()) {
      for (auto it = pre.begin(); it != pre.end(); ++it) {
        std::optional<std::int64_t> index =
            scalar_integer(file, it->first, "a GPU index in 'preoccupied'", r.diags());
        std::optional<Bytes> size =
            scalar_size(file, it->second, "memory held on a GPU", r.diags());
        if (!index || !size) continue;
        if (*index < 0 || (hw.gpus_per_node > 0 && *index >= hw.gpus_per_node)) {
          r.error(it->first, "GPU index " + std::to_string(*index) +
                                 " in 'preoccupied' is outside 0.." +
                                 std::to_string(hw.gpus_per_node - 1));
          continue;
        }
        if (spec != nullptr && *size > spec->memory_total) {
          r.error(it->second, "memory held on GPU " + std::to_string(*index) + " (" +
                                  format_bytes(*size) + ") is more than one " + spec->name +
                                  " has (" + format_bytes(spec->memory_total) + ")");
          continue;
        }
        if (!hw.preoccupied.emplace(static_cast<int>(*index), *size).second) {
          r.error(it->first,
                  "GPU index " + std::to_string(*index) + " appears twice in 'preoccupied'");
        }
      }
    }
  }
  r.finish();
}

void read_engine(MapReader& r, ScenarioEngine& engine) {
  const std::string& file = r.file();
  Diagnostics& diags = r.diags();
  if (std::optional<std::string> name = r.string("name", true)) {
    engine.name = *name;
    engine.name_loc = location(file, r.child("name"));  // the engine models check it
  }
  if (std::optional<std::string> version = r.string("version", true)) {
    engine.version = *version;
    engine.version_loc = location(file, r.child("version"));
  }
  if (YAML::Node args = r.child("args"); args.IsDefined()) {
    MapReader a(file, args, "'args'", diags);
    if (a.valid()) {
      for (auto it = args.begin(); it != args.end(); ++it) {
        EngineArg arg;
        std::optional<std::string> flag = scalar_string(file, it->first, "a flag", diags);
        if (!flag) continue;
        arg.flag = *flag;
        arg.flag_loc = location(file, it->first);
        arg.value_loc = location(file, it->second);
        if (arg.flag.empty() || arg.flag.front() != '-') {
          diags.error(arg.flag_loc, "engine flag '" + arg.flag +
                                        "' must be written as on the command line, e.g. '--" +
                                        arg.flag + "'");
          continue;
        }
        if (engine.arg(arg.flag) != nullptr) {
          diags.error(arg.flag_loc, "flag '" + arg.flag + "' is given twice");
          continue;
        }
        // it->second lives in a proxy that dies with the statement: copy the node handle.
        const YAML::Node value = it->second;
        if (value.IsSequence()) {
          arg.is_list = true;
          for (const YAML::Node& item : value) {
            if (auto s = scalar_string(file, item, "an item of '" + arg.flag + "'", diags)) {
              arg.values.push_back(*s);
            }
          }
        } else if (auto s = scalar_string(file, value, "'" + arg.flag + "'", diags)) {
          arg.values.push_back(*s);
        }
        engine.args.push_back(std::move(arg));
      }
    }
  }
  if (YAML::Node env = r.child("env"); env.IsDefined()) {
    MapReader e(file, env, "'env'", diags);
    if (e.valid()) {
      for (auto it = env.begin(); it != env.end(); ++it) {
        std::optional<std::string> name =
            scalar_string(file, it->first, "an environment variable name", diags);
        std::optional<std::string> value =
            scalar_string(file, it->second, "an environment variable's value", diags);
        if (!name || !value) continue;
        if (engine.env_var(*name) != nullptr) {
          diags.error(location(file, it->first),
                      "environment variable '" + *name + "' is given twice");
          continue;
        }
        engine.env.push_back(
            {*name, *value, location(file, it->first), location(file, it->second)});
      }
    }
  }
  if (std::optional<std::string> entry = r.string("entry")) {
    engine.entry = *entry;
    engine.entry_loc = location(file, r.child("entry"));
  }
  if (YAML::Node patches = r.child("patches"); patches.IsDefined()) {
    if (!patches.IsSequence()) {
      r.error(patches, "'patches' must be a list of patch names");
    } else {
      for (const YAML::Node& p : patches) {
        if (auto s = scalar_string(file, p, "a patch name", diags)) {
          engine.patches.push_back(*s);
          engine.patch_locs.push_back(location(file, p));
        }
      }
    }
  }
  r.finish();
}

void read_model(const std::string& file, const YAML::Node& node, Diagnostics& diags,
                ScenarioModel& model) {
  model.loc = location(file, node);
  if (node.IsScalar()) {
    model.catalog_name = node.Scalar();
    return;
  }
  MapReader m(file, node, "'model' (a catalog name or {hf_config: path})", diags);
  if (!m.valid()) return;
  if (std::optional<std::string> path = m.string("hf_config", true)) {
    namespace fs = std::filesystem;
    fs::path p(*path);
    if (p.is_relative()) p = fs::path(file).parent_path() / p;
    model.hf_config_path = p.lexically_normal().string();
    model.loc = location(file, m.child("hf_config"));
  }
  m.finish();
}

// vLLM's KV budget is the one measurement that may be below zero: a profile can leave less
// than nothing ("Available KV cache memory: -2.14 GiB", vllm v0.10.2 v1/worker/gpu_worker.py
// determine_available_memory), and the engine then stops in check_enough_kv_cache_memory.
std::optional<Bytes> signed_size(MapReader& r, std::string_view key) {
  const YAML::Node n = r.child(key);
  if (!n.IsDefined() || !n.IsScalar() || !n.Scalar().starts_with('-')) return r.size(key);
  Result<Bytes> size = parse_size(std::string_view(n.Scalar()).substr(1));
  if (!size.ok()) {
    r.error(n, "'" + std::string(key) + "': " + size.status().message());
    return std::nullopt;
  }
  return bytes(0) - *size;
}

// `gpu` is the scenario's GPU type, nullptr when unknown (reported already).
void read_observed(MapReader& r, const GpuSpec* gpu, ScenarioObserved& observed) {
  observed.loc = location(r.file(), r.node());
  observed.free_before_weights = r.size("free_before_weights");
  observed.free_after_weights = r.size("free_after_weights");
  observed.weight_load_usage = r.size("weight_load_usage");
  observed.model_loading = r.size("model_loading");
  observed.activation_peak = r.size("activation_peak");
  observed.non_torch_memory = r.size("non_torch_memory");
  // vllm v1/worker/gpu_worker.py determine_available_memory subtracts the estimate as measured:
  // free memory before the captures less after, below zero where they gave memory back.
  observed.cuda_graph_estimate = signed_size(r, "cuda_graph_estimate");
  observed.kv_cache_memory = signed_size(r, "kv_cache_memory");
  r.finish();
  // Each is memory of one GPU; more than the GPU has is a typo, and would overflow the
  // arithmetic that subtracts and adds these.
  const std::pair<const char*, const std::optional<Bytes>*> measured[] = {
      {"free_before_weights", &observed.free_before_weights},
      {"free_after_weights", &observed.free_after_weights},
      {"weight_load_usage", &observed.weight_load_usage},
      {"model_loading", &observed.model_loading},
      {"activation_peak", &observed.activation_peak},
      {"non_torch_memory", &observed.non_torch_memory},
      {"cuda_graph_estimate", &observed.cuda_graph_estimate}};
  for (const auto& [key, value] : measured) {
    if (gpu != nullptr && *value && **value > gpu->memory_total) {
      r.error(r.child(key), "'" + std::string(key) + "' (" + format_bytes(**value) +
                                ") is more than one " + gpu->name + " has (" +
                                format_bytes(gpu->memory_total) + ")");
    }
  }
  // Loading weights only takes memory: free memory after them above free memory before them
  // is a typo (or two runs mixed up), and would make the weights' size negative.
  if (observed.free_before_weights && observed.free_after_weights &&
      *observed.free_after_weights > *observed.free_before_weights) {
    r.error(r.child("free_after_weights"), "'free_after_weights' (" +
                                               format_bytes(*observed.free_after_weights) +
                                               ") is more than 'free_before_weights' (" +
                                               format_bytes(*observed.free_before_weights) +
                                               "); loading the weights cannot free memory");
  }
  if (observed.free_after_weights && observed.weight_load_usage) {
    r.error(r.child("weight_load_usage"),
            "give either 'free_after_weights' or 'weight_load_usage', not both");
  }
  // Which engine measures which is the engine models' to say (engine_model.h
  // check_observed_keys); they need to know where each key was given.
  for (const char* key :
       {"free_before_weights", "free_after_weights", "weight_load_usage", "model_loading",
        "activation_peak", "non_torch_memory", "cuda_graph_estimate", "kv_cache_memory"}) {
    if (YAML::Node n = r.node()[key]; n.IsDefined()) {
      observed.given.emplace_back(key, location(r.file(), n));
    }
  }
}

}  // namespace

std::optional<Scenario> parse_scenario(const std::string& file, const std::string& text,
                                       const GpuCatalog& gpus, Diagnostics& diags) {
  Result<YamlDocument> doc = parse_yaml(file, text);
  if (!doc.ok()) {
    diags.error({}, doc.status().message());
    return std::nullopt;
  }
  if (!doc->root.IsDefined() || doc->root.IsNull()) {
    diags.error({file, 1, 1}, "the scenario is empty; it needs 'hardware', 'engine' and 'model'");
    return std::nullopt;
  }
  Scenario s;
  s.file = file;
  MapReader top(file, doc->root, "the scenario", diags);
  if (std::optional<std::string> name = top.string("name")) {
    // The name becomes the golden report's file name (core/file_name.h).
    if (Status safe = check_file_name(*name, "the scenario's name"); !safe.ok()) {
      top.error(top.child("name"), safe.message());
    }
    s.name = *name;
  } else {
    s.name = std::filesystem::path(file).stem().string();
  }
  s.description = top.string("description").value_or("");
  if (YAML::Node hw = top.child("hardware", true); hw.IsDefined()) {
    MapReader r(file, hw, "'hardware'", diags);
    if (r.valid()) read_hardware(r, gpus, s.hardware);
  }
  if (YAML::Node engine = top.child("engine", true); engine.IsDefined()) {
    MapReader r(file, engine, "'engine'", diags);
    if (r.valid()) read_engine(r, s.engine);
  }
  // The model may come from the engine's own flag instead (SGLang --model-path, vLLM --model;
  // the engine checks that both, when given, agree).
  const bool model_flag =
      s.engine.arg("--model-path") != nullptr || s.engine.arg("--model") != nullptr;
  if (YAML::Node model = top.child("model", !model_flag); model.IsDefined()) {
    read_model(file, model, diags, s.model);
  }
  if (YAML::Node observed = top.child("observed"); observed.IsDefined()) {
    MapReader r(file, observed, "'observed'", diags);
    if (r.valid()) read_observed(r, gpus.find(s.hardware.gpu), s.observed);
  }
  if (std::optional<std::string> calibration = top.string("calibration")) {
    s.calibration = *calibration;
    s.calibration_loc = location(file, top.child("calibration"));
  }
  top.finish();
  if (!top.valid()) return std::nullopt;
  return s;
}

std::optional<Scenario> load_scenario(const std::string& path, const GpuCatalog& gpus,
                                      Diagnostics& diags) {
  Result<std::string> text = read_file(path, InputKind::kScenario);
  if (!text.ok()) {
    diags.error({}, text.status().message());
    return std::nullopt;
  }
  return parse_scenario(path, *text, gpus, diags);
}

}  // namespace gpumem
