#include "launch/launch_scenario.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/comment_text.h"
#include "core/directory.h"
#include "core/spelling.h"
#include "engine/engine_model.h"

namespace gpumem {
namespace {

// A value as a YAML scalar that reads back as the same string.
std::string yaml_scalar(const std::string& s) {
  YAML::Emitter e;
  e << YAML::DoubleQuoted << s;
  return e.c_str();
}

// A key as written when YAML reads it back as itself (a flag as typed: "--tp-size"), quoted
// otherwise (a mistyped flag holding a quote or a brace).
std::string yaml_key(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  return plain ? s : yaml_scalar(s);
}

// A scenario name in the safe file-name set (core/file_name.h): the model's last path part
// and the engine, lower case, other characters as '-'.
std::string scenario_name(const EngineLaunch& c) {
  std::string model = c.model.value_or("model");
  // A checkpoint folder is often written with a trailing '/': its name is the part before.
  while (model.size() > 1 && model.back() == '/') model.pop_back();
  const size_t slash = model.rfind('/');
  if (slash != std::string::npos) model = model.substr(slash + 1);
  std::string name = c.engine + "-" + model;
  for (char& ch : name) {
    const bool ok =
        (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
    if (ch >= 'A' && ch <= 'Z') {
      ch = static_cast<char>(ch - 'A' + 'a');
    } else if (!ok) {
      ch = '-';
    }
  }
  return name.substr(0, 100);
}

// The launch's model reference as the scenario's `model:` takes it (catalog/model_reference.h:
// a slug, a path, a repository id, the local Hugging Face cache, a download), resolved when
// the scenario is simulated. A repository id the catalog names, when no such path exists, is
// written as the entry's slug, which resolves to the same entry and reads better in reports.
std::string model_reference(const std::string& reference, const ModelCatalog& models) {
  if (reference.empty() || path_exists(reference)) return reference;
  return models.find_by_repo_id(reference).value_or(reference);
}

// The launch's node count as its engine flag gives it (SGLang's --nnodes), 1 when absent;
// nullopt when it is not a positive integer (the engine's flag reading reports that).
std::optional<int> node_count(const EngineLaunch& c, const EngineModel& engine) {
  for (const EngineArg& a : c.args) {
    const Result<const FlagSpec*> spec = match_flag(a.flag, engine.flags(), engine.title());
    if (!spec.ok() || (*spec)->name != "--nnodes") continue;
    int n = 0;
    const std::string& v = a.values.empty() ? std::string() : a.values.front();
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size() || n < 1 || n > 4096) return std::nullopt;
    return n;
  }
  return 1;
}

}  // namespace

std::optional<GpuCount> parse_gpu_option(const std::string& option, const GpuCatalog& gpus,
                                         Diagnostics& diags) {
  if (const GpuSpec* g = gpus.find_by_any_name(option)) return GpuCount{g->name, 0};
  // "h100x2": the count split off only when the name before it is a GPU of the catalog (a
  // name may itself end in "x<digits>").
  const size_t x = option.rfind('x');
  if (x != std::string::npos && x + 1 < option.size()) {
    int count = 0;
    const auto [ptr, ec] =
        std::from_chars(option.data() + x + 1, option.data() + option.size(), count);
    const GpuSpec* g = gpus.find_by_any_name(option.substr(0, x));
    if (ec == std::errc() && ptr == option.data() + option.size() && g != nullptr) {
      if (count < 1 || count > 4096) {
        diags.error({"--gpu", 0, 0}, "the GPU count in '" + option + "' must be 1 to 4096");
        return std::nullopt;
      }
      return GpuCount{g->name, count};
    }
  }
  diags.error({"--gpu", 0, 0}, "unknown GPU '" + option + "'" + did_you_mean(option, gpus.names()) +
                                   " (gpumem catalog gpus lists them; add a count as h100x2)");
  return std::nullopt;
}

std::optional<Scenario> scenario_from_launch(const EngineLaunch& command,
                                             const LaunchOptions& options, const GpuCatalog& gpus,
                                             const ModelCatalog& models, Diagnostics& diags) {
  const EngineModel* engine = find_engine(command.engine);
  const size_t errors_before = diags.count();
  Scenario s;
  s.file = kLaunchCommandFile;
  s.name = scenario_name(command);
  s.engine.name = command.engine;
  s.engine.name_loc = {kLaunchCommandFile, 1, 1};
  s.engine.version =
      options.engine_version.empty() ? engine->newest_release() : options.engine_version;
  s.engine.version_loc = {"--engine-version", 0, 0};
  if (options.engine_version.empty() && command.version) {
    s.engine.version = *command.version;  // the container image's tag
    s.engine.version_loc = command.version_loc;
  }
  // A flag repeated in one spelling is one argparse destination written twice: the engine
  // keeps the last value (argparse's store actions), and so does the scenario, whose YAML
  // could not hold the key twice. A shell keeps the last of a variable assigned twice too.
  // A flag repeated in another spelling is left to the engine's flag table, which refuses it.
  for (size_t i = 0; i < command.args.size(); ++i) {
    bool repeated_later = false;
    for (size_t j = i + 1; j < command.args.size(); ++j) {
      repeated_later = repeated_later || command.args[j].flag == command.args[i].flag;
    }
    if (!repeated_later) s.engine.args.push_back(command.args[i]);
  }
  for (size_t i = 0; i < command.env.size(); ++i) {
    bool repeated_later = false;
    for (size_t j = i + 1; j < command.env.size(); ++j) {
      repeated_later = repeated_later || command.env[j].name == command.env[i].name;
    }
    if (!repeated_later) s.engine.env.push_back(command.env[i]);
  }
  s.model.catalog_name = model_reference(command.model.value_or(""), models);
  s.model.loc = command.model_loc;
  if (options.gpu.empty()) {
    diags.error({},
                "--gpu is needed with a launch command: the GPU type, and optionally the "
                "count (e.g. --gpu h100x2)");
    return std::nullopt;
  }
  const std::optional<GpuCount> choice = parse_gpu_option(options.gpu, gpus, diags);
  if (!choice) return std::nullopt;
  s.hardware.gpu = choice->gpu;
  s.hardware.gpu_loc = {"--gpu", 0, 0};
  s.hardware.count_loc = {"--gpu", 0, 0};
  const int total = choice->count > 0 ? choice->count : std::max(1, engine->gpus_used(s.engine));
  // A launch over several nodes (sglang v0.5.9 server_args.py --nnodes) runs the same command
  // on each; the GPUs, counted over all of them, are split evenly.
  const int nodes = node_count(command, *engine).value_or(1);
  if (total % nodes != 0) {
    diags.error(
        {"--gpu", 0, 0},
        std::to_string(total) + " GPUs do not split evenly over --nnodes " + std::to_string(nodes));
    return std::nullopt;
  }
  s.hardware.nodes = nodes;
  s.hardware.gpus_per_node = total / nodes;
  if (diags.count() != errors_before) return std::nullopt;
  return s;
}

std::string launch_scenario_yaml(const Scenario& s, const EngineLaunch& c) {
  std::string y = "# The scenario this launch command implies, written by gpumem scenario:\n#   " +
                  comment_text(c.text) + "\n# Edit it and run: gpumem simulate FILE\n";
  y += "name: " + s.name + "\n";
  y += "hardware:\n  gpu: " + s.hardware.gpu +
       "\n  count: " + std::to_string(s.hardware.gpus_per_node) + "\n";
  if (s.hardware.nodes != 1) {
    y += "  nodes: " + std::to_string(s.hardware.nodes) + "  # --nnodes: count GPUs on each\n";
  }
  const bool from_image = s.engine.version_loc.file == kLaunchCommandFile;
  y += "engine:\n  name: " + s.engine.name + "\n  version: " + yaml_scalar(s.engine.version) +
       (from_image ? "  # the container image's tag\n"
                   : "  # the newest release gpumem models unless --engine-version pinned one\n");
  if (!s.engine.args.empty()) {
    y += "  args:\n";
    for (const EngineArg& a : s.engine.args) {
      y += "    " + yaml_key(a.flag) + ":";
      if (a.is_list) {
        y += " [";
        for (size_t i = 0; i < a.values.size(); ++i) {
          y += (i ? ", " : "") + yaml_scalar(a.values[i]);
        }
        y += "]\n";
      } else if (a.values.empty() || a.values[0].empty()) {
        y += " true\n";
      } else {
        y += " " + yaml_scalar(a.values[0]) + "\n";
      }
    }
  }
  if (!s.engine.env.empty()) {
    y += "  env:\n";
    for (const EnvVar& v : s.engine.env) {
      y += "    " + yaml_key(v.name) + ": " + yaml_scalar(v.value) + "\n";
    }
  }
  y += "model: " + yaml_scalar(s.model.catalog_name) + "\n";
  return y;
}

}  // namespace gpumem
