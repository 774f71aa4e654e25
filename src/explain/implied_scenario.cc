#include "explain/implied_scenario.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "core/comment_text.h"
#include "core/lower_case.h"
#include "core/python_format.h"
#include "core/size_parse.h"
#include "engine/vllm/version.h"
#include "explain/gpu_choice.h"
#include "explain/logged_flags.h"
#include "explain/model_choice.h"
#include "explain/version_choice.h"

namespace gpumem {
namespace {

std::string line_note(int line) { return "line " + std::to_string(line); }

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

// A flag the log's rank prefixes imply, for the scenario to carry as if logged.
LoggedFlag implied_flag(std::string name, std::string value, const std::string& source) {
  LoggedFlag f;
  f.flag = std::move(name);
  f.values = {std::move(value)};
  f.source = source;
  return f;
}

// GPUs the start-up uses: TP × PP × DP from the flags (SGLang's --enable-dp-attention splits
// the TP group instead of adding replicas: sglang v0.5.9 server_args.py ServerArgs), else from
// the highest rank the line prefixes name — and then the scenario carries the flags those
// ranks imply: SGLang's "DP3 TP3" on every line is data-parallel attention over TP 4
// (scheduler.py names each rank by both), "DP1 TP0" replicas of TP 1.
void count_gpus(const LogRun& run, LogEngine engine, ImpliedScenario& s) {
  const bool sglang = engine == LogEngine::kSglang;
  const std::string tp_flag = sglang ? "--tp-size" : "--tensor-parallel-size";
  const std::string dp_flag = sglang ? "--dp-size" : "--data-parallel-size";
  const std::optional<std::int64_t> tp = flag_int(run, tp_flag);
  std::int64_t pp =
      parallel_size(flag_int(run, sglang ? "--pp-size" : "--pipeline-parallel-size").value_or(1));
  std::int64_t dp = parallel_size(flag_int(run, dp_flag).value_or(1));
  if (sglang && run.flag("--enable-dp-attention") != nullptr) dp = 1;
  std::int64_t total = 0;
  if (tp) {
    total = parallel_size(*tp) * pp * dp;
    s.count_note = "TP " + std::to_string(*tp) + " x PP " + std::to_string(pp) + " x DP " +
                   std::to_string(dp) + " from the logged flags";
    s.count_at = {run.flag(tp_flag)->line, run.flag(tp_flag)->column};
  } else if (!sglang && !run.unranked_workers.empty()) {
    // vLLM V0 runs rank 0 in the driver, whose lines carry no prefix, and each other rank in a
    // worker process named by its pid (V1 under Ray: every rank in a worker): the workers a
    // log shows are a lower bound. Tensor parallelism is the common layout; a pipeline or
    // data-parallel size the flags print takes its share of the ranks first.
    const std::int64_t named = static_cast<std::int64_t>(run.unranked_workers.size());
    const std::int64_t workers = std::max<std::int64_t>(named, run.cluster_repeats + 1);
    const std::int64_t seen_ranks = workers + (run.workers_hold_every_rank ? 0 : 1);
    const std::int64_t tp_ranks = std::max<std::int64_t>(seen_ranks / (pp * dp), 1);
    total = tp_ranks * pp * dp;
    const std::string ranks = std::to_string(tp_ranks);
    std::string seen = std::to_string(named) +
                       (run.workers_hold_every_rank ? "" : " beside the driver") + " ('" +
                       run.unranked_workers.front() + "')";
    if (workers > named) {
      seen += ", and Ray repeated a worker's line for " + std::to_string(run.cluster_repeats) +
              " more ('[repeated " + std::to_string(run.cluster_repeats) +
              "x across cluster]'): " + std::to_string(workers) + " workers";
    }
    const std::string why =
        (run.workers_hold_every_rank
             ? "vLLM's Ray workers name no rank, and V1's engine core runs every rank in one: "
             : "vLLM V0's worker processes name no rank: ") +
        seen + ", so at least " + std::to_string(seen_ranks) + " GPUs, taken as TP " + ranks +
        (pp * dp > 1
             ? " x PP " + std::to_string(pp) + " x DP " + std::to_string(dp) + " (the logged flags)"
             : "");
    if (tp_ranks > 1) s.args.push_back(implied_flag(tp_flag, ranks, why));
    s.tp_from_prefixes = tp_ranks > 1;
    s.count_note = why;
  } else {
    // The ranks the prefixes of the start-up's lines name, and those its figures and
    // failures carry (vLLM's engine process prints some figures once per worker).
    std::set<RankPrefix> prefixes = run.rank_prefixes;
    for (const Observation& o : run.observations)
      prefixes.insert({o.rank, o.pp, o.dp, std::nullopt, false});
    for (const LoggedProblem& p : run.problems)
      prefixes.insert({p.rank, p.pp, p.dp, std::nullopt, false});
    int top_tp = -1;
    int top_dp = -1;
    int top_pp = -1;
    bool expert_parallel = false;
    bool vllm_worker = false;
    std::optional<int> tp_from_ep;
    for (const RankPrefix& o : prefixes) {
      if (o.tp) top_tp = std::max(top_tp, *o.tp);
      if (o.pp) top_pp = std::max(top_pp, *o.pp);
      // SGLang prints DP only beside a TP rank; vLLM's engine core of each replica is
      // "EngineCore_DP<rank>" whatever else it runs.
      if (o.dp && (o.tp || !sglang)) top_dp = std::max(top_dp, *o.dp);
      vllm_worker = vllm_worker || (!sglang && o.tp && o.worker);
      if (!sglang && o.ep) {
        expert_parallel = true;
        // vLLM's expert group spans DP x TP, DP-major (distributed/parallel_state.py
        // initialize_model_parallel): EP rank = DP rank x TP size + TP rank.
        if (o.dp > 0 && o.tp && (*o.ep - *o.tp) % *o.dp == 0) tp_from_ep = (*o.ep - *o.tp) / *o.dp;
      }
    }
    if (tp_from_ep && *tp_from_ep > top_tp) top_tp = *tp_from_ep - 1;
    // SGLang names a data-parallel-attention rank by its attention group and its global TP
    // rank ("DP1 TP3" of TP 4, DP 2: TP ranks 2 and 3 are group 1); replicas restart their TP
    // ranks ("DP1 TP0").
    bool dp_attention = sglang && top_dp > 0 && (top_tp + 1) % (top_dp + 1) == 0;
    const int per_group = dp_attention ? (top_tp + 1) / (top_dp + 1) : 1;
    for (const RankPrefix& o : prefixes) {
      if (o.dp && o.tp) dp_attention = dp_attention && *o.dp == *o.tp / per_group;
    }
    if (top_pp >= 0 && !run.flag(sglang ? "--pp-size" : "--pipeline-parallel-size")) {
      pp = top_pp + 1;
    }
    if (top_dp > 0 && !dp_attention && !run.flag(dp_flag)) dp = top_dp + 1;
    const std::string dp_source = "rank prefixes up to DP" + std::to_string(top_dp);
    if (top_tp < 0) {
      total = pp * dp;
      s.count_note = dp > 1 && !run.flag(dp_flag) ? dp_source
                     : pp * dp > 1 ? "PP " + std::to_string(pp) + " x DP " + std::to_string(dp) +
                                         " from the logged flags and prefixes, TP 1"
                                   : "no parallelism printed: one GPU";
      if (dp > 1 && !run.flag(dp_flag)) {
        s.args.push_back(implied_flag(dp_flag, std::to_string(dp), dp_source));
      }
    } else {
      // vllm v1/executor/multiproc_executor.py WorkerProc: a worker's name carries "TP<rank>"
      // only when the TP size is above 1, so a log naming TP0 alone ran at least two.
      const bool vllm_tp_worker = vllm_worker && top_tp == 0;
      // The highest rank an excerpt names bounds the size from below. A TP group splits the
      // attention heads, powers of two in the models served: a bound that is none ("up to
      // TP2") is taken as the next power of two, unless the expert ranks fix the size.
      const bool exact = tp_from_ep.has_value() && *tp_from_ep == top_tp + 1;
      int size = vllm_tp_worker ? 2 : top_tp + 1;
      std::string rounded;
      if (!exact && !dp_attention && !std::has_single_bit(static_cast<unsigned>(size))) {
        rounded = " (" + std::to_string(size) + " is a lower bound; taken as " +
                  std::to_string(std::bit_ceil(static_cast<unsigned>(size))) +
                  ", the next power of two, as TP sizes split attention heads)";
        size = static_cast<int>(std::bit_ceil(static_cast<unsigned>(size)));
      }
      const std::string ranks = std::to_string(size);
      const std::string source =
          "rank prefixes up to TP" + std::to_string(top_tp) +
          (vllm_tp_worker ? " (vLLM names a worker by its TP rank only when TP > 1: at least 2)"
                          : "") +
          (tp_from_ep ? " (EP rank = DP rank x TP size + TP rank)" : "") + rounded;
      top_tp = size - 1;
      s.tp_from_prefixes = true;
      s.tp_exact = exact;
      if (dp_attention) {
        const std::string groups = std::to_string(top_dp + 1);
        const std::string why = source + " in " + groups + " DP groups (DP attention)";
        s.args.push_back(implied_flag(tp_flag, ranks, why));
        s.args.push_back(implied_flag(dp_flag, groups, why));
        s.args.push_back(implied_flag("--enable-dp-attention", "true", why));
        total = (top_tp + 1) * pp;
        s.count_note = why;
      } else {
        s.args.push_back(implied_flag(tp_flag, ranks, source));
        if (dp > 1 && !run.flag(dp_flag)) {
          s.args.push_back(implied_flag(dp_flag, std::to_string(dp), dp_source));
        }
        total = (top_tp + 1) * pp * dp;
        s.count_note = source + (dp > 1 ? ", " + dp_source : "");
      }
      if (pp > 1 && !run.flag(sglang ? "--pp-size" : "--pipeline-parallel-size")) {
        s.args.push_back(implied_flag(sglang ? "--pp-size" : "--pipeline-parallel-size",
                                      std::to_string(pp),
                                      "rank prefixes up to PP" + std::to_string(pp - 1)));
      }
    }
    if (expert_parallel && !run.flag("--enable-expert-parallel")) {
      s.args.push_back(implied_flag("--enable-expert-parallel", "true",
                                    "rank prefixes name EP ranks (vLLM's Worker_..._EP<rank>)"));
    }
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

// A GiB figure as a scenario size: printed without a decimal point it is exact, and written in
// bytes; otherwise with the decimals it was printed with.
std::string size_text(double gib, int decimals) {
  if (decimals == kExact) {
    return std::to_string(std::llround(gib * static_cast<double>(1LL << 30))) + "B";
  }
  return python_fixed(gib, decimals) + "GiB";
}

std::string size_text(const Observation& o) { return size_text(o.value, o.decimals); }

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

// Whether `s` reads back as the same string written plain: letters, digits and . - _ /,
// except a lone '-' (a sequence entry in YAML) and the words YAML 1.1 reads as null or a
// boolean.
bool plain_scalar(const std::string& s) {
  if (s.empty() || s == "-") return false;
  const std::string word = lower_case(s);
  for (const char* reserved : {"null", "true", "false", "yes", "no", "on", "off", "y", "n"}) {
    if (word == reserved) return false;
  }
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
          c == '/')) {
      return false;
    }
  }
  return true;
}

std::string yaml_value(const std::string& s) { return plain_scalar(s) ? s : yaml_quote(s); }

// "  # note", the note's control characters shown as '?' (core/comment_text.h).
std::string yaml_comment(const std::string& note) { return "  # " + comment_text(note); }

}  // namespace

void set_gpu_count(ImpliedScenario& s, int count) {
  s.gpus_per_node = std::max(count / s.nodes, 1);
  s.count_note = std::to_string(count) + " GPUs given with --gpu-count";
  const bool sglang = s.engine == LogEngine::kSglang;
  const std::string tp_flag = sglang ? "--tp-size" : "--tensor-parallel-size";
  const auto logged = [&](const std::string& flag) {
    return std::any_of(s.args.begin(), s.args.end(),
                       [&](const LoggedFlag& f) { return f.flag == flag && f.line > 0; });
  };
  if (logged(tp_flag)) return;
  const auto value = [&](const std::string& flag) -> std::int64_t {
    for (const LoggedFlag& f : s.args) {
      if (f.flag == flag && f.values.size() == 1) {
        try {
          return std::stoll(f.values.front());
        } catch (const std::exception&) {
          return 1;
        }
      }
    }
    return 1;
  };
  const bool dp_attention = std::any_of(s.args.begin(), s.args.end(), [](const LoggedFlag& f) {
    return f.flag == "--enable-dp-attention";
  });
  const std::string dp_flag = sglang ? "--dp-size" : "--data-parallel-size";
  const std::int64_t pp =
      std::max<std::int64_t>(value(sglang ? "--pp-size" : "--pipeline-parallel-size"), 1);
  const std::string source = "--gpu-count " + std::to_string(count);
  if (s.tp_exact && !dp_attention && !logged(dp_flag)) {
    const std::int64_t replicas = std::max<std::int64_t>(count / (pp * value(tp_flag)), 1);
    std::erase_if(s.args, [&](const LoggedFlag& f) { return f.line == 0 && f.flag == dp_flag; });
    if (replicas > 1) {
      s.args.push_back(implied_flag(dp_flag, std::to_string(replicas),
                                    source + " over the TP the EP ranks fix"));
    }
    return;
  }
  const std::int64_t dp = dp_attention ? 1 : std::max<std::int64_t>(value(dp_flag), 1);
  const std::string tp = std::to_string(std::max<std::int64_t>(count / (pp * dp), 1));
  std::erase_if(s.args, [&](const LoggedFlag& f) {
    return f.line == 0 && (f.flag == tp_flag || (dp_attention && f.flag == dp_flag));
  });
  s.args.insert(s.args.begin(), implied_flag(tp_flag, tp, source));
  if (dp_attention && !logged(dp_flag)) {
    s.args.insert(s.args.begin() + 1, implied_flag(dp_flag, tp, source + " (DP attention)"));
  }
}

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
                        size_text(a->value + u->value, decimals),
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
  s.version_newer_than_modelled = v.newer_than_modelled;
  GpuChoice gpu = choose_gpu(run, gpus);
  s.gpu = {gpu.name, gpu.note, gpu.at};
  s.unlisted_gpu = std::move(gpu.unlisted);
  s.gpu_template = gpu.template_name;
  s.gpu_by_nearest_total = gpu.by_nearest_total;
  count_gpus(run, engine, s);
  const ModelChoice model = choose_model(run, models);
  s.model = model.model;
  s.model_resolved = model.resolved;
  for (const LoggedFlag& f : run.flags) {
    const FlagSpec* spec = find_flag_spec(engine, f.flag);
    if (spec == nullptr) continue;
    if (!spec->affects_memory) {
      s.left_out.push_back(f.flag + " (" + line_note(f.line) +
                           "): does not change start-up memory");
      continue;
    }
    // A logged flag replaces what the rank prefixes imply.
    std::erase_if(s.args, [&](const LoggedFlag& a) { return a.flag == f.flag && a.line == 0; });
    s.args.push_back(f);
  }
  // vLLM 0.22 on chooses its model runner by the model and release; the log's own choice is
  // replayed (engine/vllm/model_runner.h), whichever the version chosen would default to.
  if (engine == LogEngine::kVllm && run.v2_model_runner) {
    const std::optional<vllm::Version> release = vllm::parse_version(s.version.value);
    if (release && vllm::rules_for(*release).v2_runner_default != vllm::V2RunnerDefault::kNever) {
      s.env.push_back({"VLLM_USE_V2_MODEL_RUNNER",
                       {*run.v2_model_runner ? "1" : "0",
                        run.model_runner_evidence,
                        {run.model_runner_line, 0}}});
    }
  }
  s.pins = log_pins(run, engine);
  s.offline_call_line = run.offline_call_line;
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
  if (s.offline_call_line > 0) {
    line("  entry: offline" + yaml_comment("the LLM() call, " + line_note(s.offline_call_line)),
         {s.offline_call_line, 1});
  }
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
      line(text + yaml_comment(f.line > 0 ? f.source + ", " + line_note(f.line) : f.source),
           {f.line, f.column});
    }
  }
  if (!s.env.empty()) {
    line("  env:");
    for (const auto& [name, v] : s.env) {
      line("    " + name + ": " + yaml_quote(v.value) +
               yaml_comment(v.note + (v.at.line > 0 ? ", " + line_note(v.at.line) : "")),
           v.at);
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
    // Only vLLM's KV budget and graph estimate may be negative (explain/figure_bounds.h); pins are
    // written by log_pins, so a size that does not read back is a bug, not input.
    const bool negative = p.size.starts_with('-');
    Result<Bytes> size = parse_size(std::string_view(p.size).substr(negative ? 1 : 0));
    if (!size.ok()) continue;
    const Bytes value = negative ? bytes(0) - *size : *size;
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
