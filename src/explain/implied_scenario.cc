#include "explain/implied_scenario.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <optional>

#include "core/python_format.h"
#include "core/size_parse.h"
#include "explain/logged_flags.h"
#include "explain/version_choice.h"

namespace gpumem {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string basename(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string line_note(int line) { return "line " + std::to_string(line); }

// A catalog entry's model_id may carry a remark after the name ("x/y (also z)").
std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

// The catalog slug whose Hugging Face name is `logged` (or ends in its last component, for a
// local checkpoint path), and how it matched.
std::optional<Sourced> resolve_model(const std::string& logged, const ModelCatalog& models) {
  const std::string want = lower(logged);
  const std::string want_base = lower(basename(logged));
  std::optional<Sourced> by_base;
  for (const std::string& slug : models.slugs()) {
    Diagnostics ignored;
    Result<ModelEntry> entry = models.find(slug, ignored);
    if (!entry.ok()) continue;
    const std::string id = lower(first_word(entry.value().model_id));
    if (id == want) return Sourced{slug, "model_id " + entry.value().model_id, {}};
    if (!by_base && (lower(basename(id)) == want_base || slug == want_base)) {
      by_base = Sourced{
          slug, "last path component matches model_id " + first_word(entry.value().model_id), {}};
    }
  }
  return by_base;
}

double gib(Bytes b) { return static_cast<double>(b.value()) / static_cast<double>(1LL << 30); }

bool same_printed(double printed, int decimals, double actual) {
  const double unit = std::pow(10.0, -(decimals < 0 ? 2 : decimals));
  return std::fabs(printed - actual) <= unit / 2 + 1e-9;
}

// The GPU type by the name the log prints, else by a total it prints (vLLM's CUDA total in
// GiB; nvidia-smi's memory.total in MiB). Several types may share a total (the RTX 3090 Ti,
// 4090 and A5000 all show 24564 MiB): then none is taken, and the note names them.
Sourced resolve_gpu(const LogRun& run, const GpuCatalog& gpus) {
  if (run.gpu_name) {
    for (const GpuSpec& g : gpus.gpus()) {
      if (lower(g.nvidia_smi_name) == lower(*run.gpu_name)) {
        return {g.name,
                "printed name '" + *run.gpu_name + "', " + line_note(run.gpu_name_line),
                {run.gpu_name_line, 0}};
      }
    }
  }
  std::vector<std::string> matches;
  std::string why;
  if (const Observation* total = run.first(Quantity::kTotalMemory)) {
    for (const GpuSpec& g : gpus.gpus()) {
      if (g.cuda_total && same_printed(total->value, total->decimals, gib(*g.cuda_total))) {
        matches.push_back(g.name);
      }
    }
    why = "CUDA total " + python_fixed(total->value, 2) + " GiB (" + line_note(total->line) + ")";
  } else if (run.gpu_memory_total_mib) {
    for (const GpuSpec& g : gpus.gpus()) {
      const double mib = static_cast<double>(g.memory_total.value()) / (1 << 20);
      if (std::fabs(mib - *run.gpu_memory_total_mib) < 0.5) matches.push_back(g.name);
    }
    why = "nvidia-smi memory.total " + std::to_string(std::llround(*run.gpu_memory_total_mib)) +
          "MiB";
  }
  // A driver's reserve moves CUDA's total by a few tens of MiB between releases: failing an
  // exact match, the nearest CUDA total within 1% is taken, and the note says so.
  if (matches.empty() && run.first(Quantity::kTotalMemory) != nullptr) {
    const double printed = run.first(Quantity::kTotalMemory)->value;
    const GpuSpec* nearest = nullptr;
    for (const GpuSpec& g : gpus.gpus()) {
      if (!g.cuda_total) continue;
      const double d = std::fabs(gib(*g.cuda_total) - printed);
      if (d <= 0.01 * printed &&
          (nearest == nullptr || d < std::fabs(gib(*nearest->cuda_total) - printed))) {
        nearest = &g;
      }
    }
    if (nearest != nullptr) {
      return {nearest->name,
              why + " is nearest to " + nearest->name + " (CUDA total " +
                  python_fixed(gib(*nearest->cuda_total), 2) +
                  " GiB; no GPU of the catalog has exactly this total)",
              {}};
    }
  }
  if (matches.empty()) {
    return {"",
            run.gpu_name  ? "printed name '" + *run.gpu_name + "' is not in the GPU catalog"
            : why.empty() ? "neither the GPU's name nor its total memory is printed"
                          : why + " matches no GPU in the catalog",
            {}};
  }
  if (matches.size() > 1) {
    std::string all;
    for (const std::string& m : matches) all += (all.empty() ? "" : ", ") + m;
    return {
        "", why + " matches several GPUs of the catalog (" + all + "): give one with --gpu", {}};
  }
  return {matches.front(), why + " matches " + matches.front(), {}};
}

std::optional<std::int64_t> flag_int(const LogRun& run, std::string_view flag) {
  const LoggedFlag* f = run.flag(flag);
  if (f == nullptr || f->values.size() != 1) return std::nullopt;
  try {
    return std::stoll(f->values.front());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A parallel size as the engine's reader bounds it (engine/flag_table.cc positive_flag):
// a value outside 1 to 4096 is kept as it is, for that reader to refuse at its line, but
// held to 2^20 here so that the product of three stays inside 64 bits.
std::int64_t parallel_size(std::int64_t v) { return std::clamp<std::int64_t>(v, 0, 1 << 20); }

// GPUs the start-up uses: TP × PP × DP from the flags (SGLang's --enable-dp-attention splits
// the TP group instead of adding replicas: sglang v0.5.9 server_args.py ServerArgs), else the
// highest rank a line prefix names.
void count_gpus(const LogRun& run, LogEngine engine, ImpliedScenario& s) {
  const bool sglang = engine == LogEngine::kSglang;
  const char* tp_flag = sglang ? "--tp-size" : "--tensor-parallel-size";
  const std::optional<std::int64_t> tp = flag_int(run, tp_flag);
  const std::int64_t pp =
      parallel_size(flag_int(run, sglang ? "--pp-size" : "--pipeline-parallel-size").value_or(1));
  std::int64_t dp =
      parallel_size(flag_int(run, sglang ? "--dp-size" : "--data-parallel-size").value_or(1));
  if (sglang && run.flag("--enable-dp-attention") != nullptr) dp = 1;
  std::int64_t total = 0;
  if (tp) {
    total = parallel_size(*tp) * pp * dp;
    s.count_note = "TP " + std::to_string(*tp) + " x PP " + std::to_string(pp) + " x DP " +
                   std::to_string(dp) + " from the logged flags";
    s.count_at = {run.flag(tp_flag)->line, run.flag(tp_flag)->column};
  } else {
    int highest = -1;
    for (const Observation& o : run.observations) {
      if (o.rank) highest = std::max(highest, *o.rank);
    }
    total = (highest + 1) * pp * dp;
    s.count_note = highest >= 0 ? "rank prefixes up to TP" + std::to_string(highest)
                                : "no parallelism printed: one GPU";
    if (highest < 0) total = pp * dp;
  }
  const std::int64_t nodes = parallel_size(sglang ? flag_int(run, "--nnodes").value_or(1) : 1);
  s.nodes = static_cast<int>(std::max<std::int64_t>(nodes, 1));
  s.gpus_per_node = static_cast<int>(std::max<std::int64_t>(total / s.nodes, 1));
  if (s.nodes > 1) s.count_note += ", over --nnodes " + std::to_string(s.nodes);
}

// The world minimum of a figure every rank prints (engines take the minimum over ranks).
const Observation* lowest(const LogRun& run, Quantity q) {
  const Observation* best = nullptr;
  for (const Observation* o : run.all(q)) {
    if (best == nullptr || o->value < best->value) best = o;
  }
  return best;
}

std::string size_text(const Observation& o) {
  if (o.decimals == kExact) {
    return std::to_string(std::llround(o.value * static_cast<double>(1LL << 30))) + "B";
  }
  return python_fixed(o.value, o.decimals) + "GiB";
}

void pin(std::vector<Pin>& pins, const LogRun& run, Quantity q, const std::string& key,
         bool minimum) {
  const Observation* o = minimum ? lowest(run, q) : run.first(q);
  if (o == nullptr) return;
  std::string note = line_note(o->line) + " (" + std::string(quantity_name(q)) + ")";
  if (minimum && run.all(q).size() > 1) note += ", the lowest of the ranks";
  pins.push_back({key, size_text(*o), note, {o->line, 0}});
}

// A double-quoted YAML scalar; control characters a log line may hold are escaped.
std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool plain_scalar(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
          c == '/')) {
      return false;
    }
  }
  return true;
}

std::string yaml_value(const std::string& s) { return plain_scalar(s) ? s : yaml_quote(s); }

// "  # note": a comment ends at the line's end, so a control character in text a log
// supplied (a model name, a GPU name) is shown as '?'.
std::string yaml_comment(const std::string& note) {
  std::string out = "  # ";
  for (char c : note) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? '?' : c;
  }
  return out;
}

}  // namespace

std::vector<Pin> log_pins(const LogRun& run, LogEngine engine) {
  std::vector<Pin> pins;
  if (engine == LogEngine::kSglang) {
    pin(pins, run, Quantity::kFreeBeforeWeights, "free_before_weights", true);
    const Observation* a = lowest(run, Quantity::kFreeAfterWeights);
    if (pins.empty() && a != nullptr) {
      // sglang v0.4.3 model_runner.py ModelRunner.load_model prints mem usage = F - A on the same
      // line: a log that starts at the weights still gives F, rounded twice.
      for (const Observation* u : run.all(Quantity::kWeightUsage)) {
        if (u->line != a->line) continue;
        const int decimals = std::max(a->decimals, u->decimals);
        pins.push_back({"free_before_weights",
                        python_fixed(a->value + u->value, decimals) + "GiB",
                        line_note(a->line) + " (free after weights + weights took)",
                        {a->line, 0}});
      }
    }
    pin(pins, run, Quantity::kFreeAfterWeights, "free_after_weights", true);
    return pins;
  }
  pin(pins, run, Quantity::kModelLoading, "model_loading", false);
  pin(pins, run, Quantity::kActivationPeak, "activation_peak", false);
  pin(pins, run, Quantity::kNonTorchMemory, "non_torch_memory", false);
  pin(pins, run, Quantity::kCudaGraphEstimate, "cuda_graph_estimate", false);
  // --kv-cache-memory already fixes the KV memory; the scenario takes one of the two.
  if (run.flag("--kv-cache-memory") == nullptr) {
    pin(pins, run, Quantity::kAvailableKvMemory, "kv_cache_memory", true);
  }
  return pins;
}

ImpliedScenario infer_scenario(const LogRun& run, LogEngine engine, const std::string& name,
                               const GpuCatalog& gpus, const ModelCatalog& models) {
  ImpliedScenario s;
  s.engine = engine;
  s.name = name;
  const VersionChoice v = choose_version(run, engine);
  s.version = {v.version, v.note, {run.version_line, 0}};
  s.version_older_than_modelled = v.older_than_modelled;
  s.gpu = resolve_gpu(run, gpus);
  count_gpus(run, engine, s);
  const LoggedFlag* served = run.flag("--served-model-name");
  std::optional<Sourced> by_served;
  if (served != nullptr && !served->values.empty()) {
    by_served = resolve_model(served->values.front(), models);
  }
  if (run.model && !resolve_model(*run.model, models) && by_served) {
    // A local checkpoint path names less than the name it is served under.
    s.model = {by_served->value,
               "served as '" + served->values.front() + "' (" + line_note(served->line) +
                   "): " + by_served->note,
               {served->line, served->column}};
    s.model_resolved = true;
  } else if (run.model) {
    if (std::optional<Sourced> m = resolve_model(*run.model, models)) {
      s.model = {m->value,
                 "'" + *run.model + "' (" + line_note(run.model_line) + "): " + m->note,
                 {run.model_line, 0}};
      s.model_resolved = true;
    } else {
      s.model = {
          *run.model,
          "'" + *run.model + "' (" + line_note(run.model_line) + ") is not in the model catalog",
          {run.model_line, 0}};
    }
  } else {
    s.model = {"", "the log names no model", {}};
  }
  for (const LoggedFlag& f : run.flags) {
    const FlagSpec* spec = find_flag_spec(engine, f.flag);
    if (spec == nullptr) continue;
    if (!spec->affects_memory) {
      s.left_out.push_back(f.flag + " (" + line_note(f.line) +
                           "): does not change start-up memory");
      continue;
    }
    s.args.push_back(f);
  }
  s.pins = log_pins(run, engine);
  return s;
}

ImpliedYaml implied_yaml(const ImpliedScenario& s) {
  ImpliedYaml y;
  const auto line = [&y](std::string text, LogPosition at = {}) {
    y.text += text + "\n";
    y.sources.push_back(at);
  };
  line("name: " + yaml_value(s.name));
  line("hardware:");
  line("  gpu: " + (s.gpu.value.empty() ? std::string("UNKNOWN") : yaml_value(s.gpu.value)) +
           yaml_comment(s.gpu.note +
                        (s.gpu.value.empty() ? "; write a GPU of `gpumem catalog gpus`" : "")),
       s.gpu.at);
  line("  count: " + std::to_string(s.gpus_per_node) + yaml_comment(s.count_note), s.count_at);
  if (s.nodes > 1) line("  nodes: " + std::to_string(s.nodes), s.count_at);
  line("engine:");
  line("  name: " + std::string(log_engine_name(s.engine)));
  line("  version: " + s.version.value + yaml_comment(s.version.note), s.version.at);
  if (!s.args.empty()) {
    line("  args:");
    for (const LoggedFlag& f : s.args) {
      std::string text = "    " + f.flag + ": ";
      if (f.is_list) {
        text += "[";
        for (size_t i = 0; i < f.values.size(); ++i)
          text += (i ? ", " : "") + yaml_value(f.values[i]);
        text += "]";
      } else {
        text += yaml_value(f.values.empty() ? "" : f.values.front());
      }
      line(text + yaml_comment(f.source + ", " + line_note(f.line)), {f.line, f.column});
    }
  }
  line("model: " + (s.model.value.empty() ? std::string("UNKNOWN") : yaml_value(s.model.value)) +
           yaml_comment(s.model.note +
                        (s.model_resolved ? "" : "; write a model of `gpumem catalog models`")),
       s.model.at);
  if (!s.pins.empty()) {
    line("observed:  # values the log printed; each replaces gpumem's prediction");
    for (const Pin& p : s.pins) line("  " + p.key + ": " + p.size + yaml_comment(p.note), p.at);
  }
  return y;
}

std::string scenario_yaml(const ImpliedScenario& s, const std::string& header) {
  return header + implied_yaml(s).text;
}

std::vector<std::string> apply_pins(Scenario& s, const std::vector<Pin>& pins) {
  std::vector<std::string> set;
  ScenarioObserved& o = s.observed;
  for (const Pin& p : pins) {
    Result<Bytes> size = parse_size(p.size);
    if (!size.ok()) continue;
    const Bytes value = *size;
    std::optional<Bytes>* slot = p.key == "free_before_weights"   ? &o.free_before_weights
                                 : p.key == "free_after_weights"  ? &o.free_after_weights
                                 : p.key == "model_loading"       ? &o.model_loading
                                 : p.key == "activation_peak"     ? &o.activation_peak
                                 : p.key == "non_torch_memory"    ? &o.non_torch_memory
                                 : p.key == "cuda_graph_estimate" ? &o.cuda_graph_estimate
                                 : p.key == "kv_cache_memory"     ? &o.kv_cache_memory
                                                                  : nullptr;
    if (slot == nullptr || slot->has_value()) continue;
    // A scenario giving weight_load_usage instead of A keeps it (the two exclude each other).
    if (p.key == "free_after_weights" && o.weight_load_usage) continue;
    if (p.key == "kv_cache_memory" && s.engine.arg("--kv-cache-memory") != nullptr) continue;
    *slot = value;
    set.push_back(p.key);
  }
  return set;
}

}  // namespace gpumem
