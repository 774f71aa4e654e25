#include "explain/partial_replay.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/python_format.h"
#include "engine/sglang/kv_sizing.h"
#include "engine/vllm/kv_sizing.h"
#include "engine/vllm/version.h"
#include "sim/device_constants.h"
#include "sim/sim_device.h"

namespace gpumem {
namespace {

constexpr double kGiB = static_cast<double>(1LL << 30);
// A predicted GiB figure is shown with two decimals.
constexpr double kShownHalf = 0.005;

double half_unit(int decimals) { return decimals < 0 ? 0.0 : 0.5 * std::pow(10.0, -decimals); }

Bytes to_bytes(double gib) { return bytes(static_cast<std::int64_t>(std::llround(gib * kGiB))); }
double to_gib(Bytes b) { return static_cast<double>(b.value()) / kGiB; }
std::string gib(double v) { return python_fixed(v, 2) + " GiB"; }

// A logged figure the arithmetic reads: GiB as printed, half a unit of its last digit.
struct Logged {
  double value = 0;
  double half = 0;
  const Observation* at = nullptr;
};

Logged logged(const Observation* o) { return {o->value, half_unit(o->decimals), o}; }

// The first figure of `q` printed by `process`, else the first printed by any process.
std::optional<Logged> first_of(const LogRun& run, Quantity q, const std::string& process) {
  const Observation* any = nullptr;
  for (const Observation* o : run.all(q)) {
    if (o->process == process) return logged(o);
    if (any == nullptr) any = o;
  }
  if (any == nullptr) return std::nullopt;
  return logged(any);
}

std::optional<double> flag_number(const LogRun& run, std::string_view name) {
  const LoggedFlag* f = run.flag(name);
  if (f == nullptr || f->values.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(f->values.front().c_str(), &end);
  if (end == f->values.front().c_str() || *end != '\0') return std::nullopt;
  return v;
}

// The rows of the figures the partial replay reads and sets.
class Rows {
 public:
  explicit Rows(RunExplanation& r) : r_(r) {}

  void pin(const std::optional<Logged>& l) {
    if (!l || l->at == nullptr) return;
    for (FigureCheck& c : r_.figures) {
      if (same(c, *l->at) && c.verdict == Verdict::kNotPredicted) c.verdict = Verdict::kPinned;
    }
  }
  void predict(const Observation& o, double predicted, double tolerance) {
    for (FigureCheck& c : r_.figures) {
      if (!same(c, o)) continue;
      c.predicted = predicted;
      c.tolerance = tolerance;
      c.verdict =
          std::fabs(predicted - c.logged) <= tolerance + 1e-9 ? Verdict::kMatch : Verdict::kMiss;
      ++predicted_;
    }
  }
  int predicted() const { return predicted_; }

 private:
  static bool same(const FigureCheck& c, const Observation& o) {
    return c.line == o.line && c.quantity == o.quantity && c.process == o.process;
  }
  RunExplanation& r_;
  int predicted_ = 0;
};

// "model unknown: ..." — what the partial replay leaves out, and how to get the full one.
std::string label(const RunExplanation& r) {
  const bool model = !r.implied.model_resolved;
  const bool gpu = r.implied.gpu.value.empty();
  std::string why;
  if (r.scenario_file.empty() && !r.implied.complete()) {
    if (model && gpu) {
      why =
          "model and GPU unknown: KV tokens, weights and graphs are not predicted, nor what "
          "follows from the GPU's total memory; name them with --model and --gpu to replay "
          "everything";
    } else if (model) {
      why =
          "model unknown: KV tokens, weights and graphs are not predicted; name the model with "
          "--model to replay everything";
    } else {
      why =
          "GPU unknown: what follows from the GPU's total memory is not predicted; name the "
          "GPU with --gpu to replay everything";
    }
  } else {
    why = "no full replay, see below: KV tokens, weights and graphs are not predicted";
  }
  return "the engine's budget from the log's figures (" + why + ")";
}

// What the log says about the start-up's end, against the log's own arithmetic: a failure
// of one of `kinds` is the KV cache's; another failure (its cause not printed, or an
// error after the KV cache) does not contradict a KV cache that does not fit.
void agreement(RunExplanation& r, bool fits, std::initializer_list<ProblemKind> kinds) {
  const bool kv_failure =
      std::any_of(r.run.problems.begin(), r.run.problems.end(), [&](const LoggedProblem& p) {
        return std::find(kinds.begin(), kinds.end(), p.kind) != kinds.end();
      });
  // vllm v0.7 worker.py determine_num_available_blocks: max(blocks, 0), and 0 blocks raise
  // "No available memory for the cache blocks" after the lines it prints.
  const Observation* blocks = r.run.first(Quantity::kGpuBlocks);
  const bool no_blocks = blocks != nullptr && blocks->value == 0;
  if (!fits) {
    r.diagnosis.push_back(!r.run.problems.empty() ? "agrees with the log: the start-up does not fit"
                          : no_blocks
                              ? "agrees with the log: 0 GPU blocks (line " +
                                    std::to_string(blocks->line) + "), the start-up does not fit"
                              : "MISS: the log shows no failure, its own figures say the KV "
                                "cache does not fit");
  } else if (kv_failure) {
    r.diagnosis.push_back("MISS: the log shows the KV cache failing, its own figures say it fits");
  }
}

// The release the arithmetic follows, where the log's is outside the modelled ones.
void release_caveat(RunExplanation& r) {
  const ImpliedScenario& s = r.implied;
  if (s.version_older_than_modelled) {
    r.diagnosis.push_back("the log's release is older than every release gpumem models (" +
                          s.version.value +
                          "'s rules are used): a miss may be the engine's history");
  } else if (s.version_newer_than_modelled) {
    r.diagnosis.push_back("the log's release is newer than every release gpumem models (" +
                          s.version.value +
                          "'s rules are used): a miss may be the engine's newer rules");
  }
}

// The total GPU memory CUDA reports for the implied GPU (the unlisted one where the log sizes
// a GPU the catalog lacks).
std::optional<Bytes> catalog_total(const RunExplanation& r, const ExplainContext& ctx) {
  const GpuSpec* g =
      r.implied.unlisted_gpu ? &*r.implied.unlisted_gpu : ctx.gpus.find(r.implied.gpu.value);
  if (g == nullptr) return std::nullopt;
  return cuda_total_memory(*g, DeviceConstants{});
}

// vllm gpu_worker.py determine_available_memory and kv_cache_utils.py
// check_enough_kv_cache_memory, from the figures the log prints.
bool vllm_partial(RunExplanation& r, const ExplainContext& ctx) {
  const LogRun& run = r.run;
  const std::optional<vllm::Version> version = vllm::parse_version(r.implied.version.value);
  if (!version) return false;
  const vllm::VersionRules rules = vllm::rules_for(*version);
  release_caveat(r);
  Rows rows(r);
  std::string process;
  for (Quantity q : {Quantity::kAvailableKvMemory, Quantity::kModelLoading,
                     Quantity::kRequestedMemory, Quantity::kTotalMemory}) {
    if (const Observation* o = run.first(q)) {
      process = o->process;
      break;
    }
  }
  const auto get = [&](Quantity q) { return first_of(run, q, process); };

  // The budget: total x --gpu-memory-utilization (worker/utils.py request_memory).
  std::optional<Bytes> total;
  double total_half = 0;  // of a logged total; a catalog total's doubt is in budget_half
  std::string total_text;
  if (const std::optional<Logged> t = get(Quantity::kTotalMemory)) {
    total = to_bytes(t->value);
    total_half = t->half;
    total_text = "total " + gib(t->value) + " (line " + std::to_string(t->at->line) + ")";
    rows.pin(t);
  }
  std::optional<Bytes> from_catalog;
  if (!total && (from_catalog = catalog_total(r, ctx))) {
    total = from_catalog;
    total_text = "total " + gib(to_gib(*total)) + " (" + r.implied.gpu.value + "'s)";
  }
  const std::optional<double> util_flag = flag_number(run, "--gpu-memory-utilization");
  const double util = util_flag.value_or(rules.default_gpu_memory_utilization);
  const std::string util_text =
      "--gpu-memory-utilization " + python_float_repr(util) +
      (util_flag ? "" : " (vLLM " + r.implied.version.value + "'s default)");
  const std::optional<Logged> requested = get(Quantity::kRequestedMemory);
  std::optional<double> budget;
  double budget_half = 0;
  if (total) {
    const double predicted = vllm::requested_memory(*total, util, rules) / kGiB;
    budget = predicted;
    budget_half = (from_catalog ? ctx.tolerances.memory_gib : total_half) * util;
    if (requested) {
      rows.predict(*requested->at, predicted, requested->half + kShownHalf + budget_half);
    }
    r.diagnosis.push_back("the log's arithmetic: budget = " + total_text + " x " + util_text +
                          " = " + gib(predicted));
  }
  if (requested) {
    // The engine's own figure is the better input for what follows.
    budget = requested->value;
    budget_half = requested->half;
  }

  // The memory the profile keeps from the KV cache: weights, activation peak, non-torch
  // memory, CUDA-graph estimate (V0: peak_torch_memory holds the weights and the activation
  // peak; the newest summary prints weights + non-torch as consumed memory).
  const std::optional<Logged> weights = get(Quantity::kModelLoading);
  const std::optional<Logged> peak = get(Quantity::kActivationPeak);
  const std::optional<Logged> non_torch = get(Quantity::kNonTorchMemory);
  const std::optional<Logged> torch_peak = get(Quantity::kPeakTorchMemory);
  const std::optional<Logged> consumed = get(Quantity::kConsumedMemory);
  std::optional<Logged> graphs = get(Quantity::kCudaGraphEstimate);
  // The estimate line is printed where the estimate is applied; without it a release that
  // does not estimate by default (or an eager launch) applies none.
  if (!graphs && (!rules.cudagraph_estimate_default_on || run.flag("--enforce-eager") != nullptr)) {
    graphs = Logged{};
  }
  std::vector<std::optional<Logged>> terms;
  vllm::ProfileResult p;
  if (torch_peak && non_torch) {
    terms = {torch_peak, non_torch};
    p.weights = to_bytes(torch_peak->value);  // weights and activation peak
    p.non_torch_increase = to_bytes(non_torch->value);
  } else if (consumed && peak) {
    terms = {consumed, peak};
    p.weights = to_bytes(consumed->value);  // weights and non-torch memory
    p.torch_peak_increase = to_bytes(peak->value);
  } else if (weights && peak && non_torch) {
    terms = {weights, peak, non_torch};
    p.weights = to_bytes(weights->value);
    p.torch_peak_increase = to_bytes(peak->value);
    p.non_torch_increase = to_bytes(non_torch->value);
  }
  std::optional<vllm::ProfileResult> profile;
  double profile_half = 0;
  if (!terms.empty() && graphs) {
    terms.push_back(graphs);
    p.cudagraph_estimate = to_bytes(graphs->value);
    for (const std::optional<Logged>& t : terms) profile_half += t->half;
    profile = p;
  }

  const std::optional<Logged> kv = get(Quantity::kAvailableKvMemory);
  std::optional<double> available = kv ? std::optional<double>(kv->value) : std::nullopt;
  if (budget && profile) {
    const double predicted = to_gib(vllm::available_kv_cache_memory(*budget * kGiB, *profile));
    for (const std::optional<Logged>& t : terms) rows.pin(t);
    if (kv) {
      rows.predict(*kv->at, predicted, kv->half + kShownHalf + budget_half + profile_half);
      rows.pin(requested);
    } else {
      available = predicted;
    }
    r.diagnosis.push_back(
        "the log's arithmetic: KV cache memory = budget - weights - activation "
        "peak - non-torch memory - CUDA-graph estimate = " +
        gib(predicted));
  } else if (budget && kv) {
    double known = 0;
    std::string known_names;
    std::string unknown_names;
    for (const auto& [term, name] : {std::pair{weights, "weights"},
                                     {peak, "activation peak"},
                                     {non_torch, "non-torch memory"},
                                     {graphs, "CUDA-graph estimate"}}) {
      if (term && term->at != nullptr) {
        known += term->value;
        known_names += std::string(" - ") + name;
        rows.pin(term);
      } else if (!term) {
        unknown_names += (unknown_names.empty() ? "" : ", ") + std::string(name);
      }
    }
    rows.pin(kv);
    rows.pin(requested);
    r.diagnosis.push_back("the log's arithmetic: what it does not print (" + unknown_names +
                          ") takes budget" + known_names +
                          " - KV cache memory = " + gib(*budget - known - kv->value));
  }

  // kv_cache_utils.py check_enough_kv_cache_memory, with the figures of its error.
  const std::optional<Logged> needed = get(Quantity::kKvCacheNeeded);
  rows.pin(needed);
  bool fits = true;
  bool decided = false;
  if (available && (*available <= 0 || needed)) {
    decided = true;
    rows.pin(kv);
    fits = vllm::kv_cache_memory_suffices(to_bytes(*available),
                                          needed ? to_bytes(needed->value) : bytes(0));
    if (*available <= 0) {
      r.diagnosis.push_back(
          "the log's arithmetic: no memory left for the KV cache: " + gib(*available) +
          " available, short by " + gib(-*available) +
          (needed ? " and the " + gib(needed->value) + " one request of the maximum length needs"
                  : " and what one request of the maximum length needs (the model would say)"));
    } else if (!fits) {
      r.diagnosis.push_back("the log's arithmetic: one request of the maximum length needs " +
                            gib(needed->value) + " of KV cache, " + gib(*available) +
                            " is available: short by " + gib(needed->value - *available));
    } else {
      r.diagnosis.push_back("the log's arithmetic: the KV cache memory (" + gib(*available) +
                            ") holds one request of the maximum length (" + gib(needed->value) +
                            ")");
    }
    agreement(r, fits, {ProblemKind::kNoKvMemory, ProblemKind::kKvCacheTooSmall});
  }
  if (rows.predicted() == 0 && !decided) return false;
  r.partial = PartialReplay{label(r), fits};
  if (fits) return true;

  // The smallest flag change by the log's own figures, each alone.
  std::string advice = "by the log's own figures (each alone):\n";
  const double need = needed ? needed->value + needed->half : 0;
  if (total && budget) {
    // The memory the budget keeps from the KV cache, as the log's budget and KV cache memory
    // show it, in the worst case of their print rounding. A budget gpumem computed from the
    // total scales with it, so the total's own doubt cancels out of the other budgets.
    const double non_kv = *budget - *available + (kv ? kv->half : profile_half) +
                          (requested ? requested->half + total_half : 0);
    vllm::ProfileResult held;
    held.weights = to_bytes(non_kv);
    const std::optional<double> u =
        vllm::smallest_gpu_memory_utilization(*total, held, to_bytes(need), rules);
    if (u) {
      const double budget_u = vllm::requested_memory(*total, *u, rules);
      const double left = to_gib(vllm::available_kv_cache_memory(budget_u, held));
      advice +=
          "  --gpu-memory-utilization " + python_fixed(*u, 2) + ": budget " + gib(budget_u / kGiB) +
          " - non-KV memory " + gib(non_kv) +
          " (the log's budget less its KV cache memory) = " + gib(left) + " for the KV cache: " +
          (needed
               ? "enough for the " + gib(needed->value) + " one request of the maximum length needs"
               : "more than none; whether it holds one request of the maximum length "
                 "needs the model (name it with --model)");
      if (const std::optional<Logged> free = get(Quantity::kFreeAtStartup);
          free && budget_u / kGiB > free->value) {
        advice += "; but that budget is above the " + gib(free->value) +
                  " free at start-up: free memory on the GPU first";
      }
      advice += "\n";
    } else {
      advice += "  no --gpu-memory-utilization up to 1.0 leaves the KV cache " +
                (needed ? "the " + gib(needed->value) + " one request of the maximum length needs"
                        : std::string("any memory")) +
                ": the non-KV memory (" + gib(non_kv) + ") leaves " + gib(to_gib(*total) - non_kv) +
                " of the whole GPU\n";
    }
  } else {
    advice +=
        "  --gpu-memory-utilization: not determined (the GPU's total memory is not known: "
        "name the GPU with --gpu)\n";
  }
  const std::optional<double> max_len = flag_number(run, "--max-model-len");
  if (needed && kv && kv->value > 0 && max_len) {
    if (const std::optional<Logged> estimate = get(Quantity::kKvTokensStorable)) {
      advice += "  --max-model-len " + std::to_string(std::llround(estimate->value)) +
                ": vLLM's own estimate of what the KV cache holds\n";
    } else {
      // vllm v0.10.2 config/cache.py CacheConfig: block_size defaults to 16 tokens on CUDA.
      const std::int64_t len = vllm::max_model_len_within(
          to_bytes(kv->value - kv->half), to_bytes(needed->value + needed->half),
          std::llround(*max_len), ctx.tolerances.vllm_block_tokens);
      if (len > 0) {
        advice += "  --max-model-len " + std::to_string(len) + ": " + gib(kv->value) +
                  " of KV cache memory at " + gib(needed->value) + " per " +
                  std::to_string(std::llround(*max_len)) +
                  " tokens, if every layer is full attention (sliding-window layers need "
                  "the same at any length: with them it holds less)\n";
      }
    }
  }
  r.advice = advice;
  return true;
}

// sglang model_runner_kv_cache_mixin.py profile_max_num_token, from the figures the log
// prints: F and A are MINs over the ranks (get_available_gpu_memory(distributed=True)).
bool sglang_partial(RunExplanation& r) {
  const LogRun& run = r.run;
  release_caveat(r);
  Rows rows(r);
  std::map<std::string, std::pair<std::optional<Logged>, std::optional<Logged>>> by_process;
  for (const Observation& o : run.observations) {
    auto& [f, a] = by_process[o.process];
    if (o.quantity == Quantity::kFreeBeforeWeights && !f) f = logged(&o);
    if (o.quantity == Quantity::kFreeAfterWeights && !a) a = logged(&o);
  }
  std::optional<Logged> f_min;
  std::optional<Logged> a_min;
  std::vector<std::optional<Logged>> inputs;
  std::string f_text;  // how F follows from the log, where it is not printed
  for (auto& [process, fa] : by_process) {
    auto& [f, a] = fa;
    if (!a) continue;
    std::optional<Logged> f_used = f;
    std::string text;
    if (!f_used) {
      // "Load weight end ... mem usage" is F - A of the same line.
      const std::optional<Logged> w = first_of(run, Quantity::kWeightUsage, process);
      if (!w || w->at->process != process) continue;
      f_used = Logged{a->value + w->value, a->half + w->half, nullptr};
      inputs.push_back(w);
      text = " (F = A + weights took = " + python_fixed(a->value, 2) + " + " +
             python_fixed(w->value, 2) + ")";
    } else {
      inputs.push_back(f);
    }
    inputs.push_back(a);
    if (!f_min || f_used->value < f_min->value) {
      f_min = f_used;
      f_text = text;
    }
    if (!a_min || a->value < a_min->value) a_min = a;
  }
  const std::optional<double> mfs = flag_number(run, "--mem-fraction-static");
  if (!f_min || !a_min) return false;
  if (!mfs) {
    r.diagnosis.push_back(
        "the log's arithmetic: F and A are printed, but not --mem-fraction-static "
        "(its default follows from the GPU and the model)");
    return false;
  }
  for (const std::optional<Logged>& i : inputs) rows.pin(i);
  const double rest =
      sglang::profile_rest(engine_gib(f_min->value), engine_gib(a_min->value), *mfs).value();
  const double rest_half = f_min->half * (1 - *mfs) + a_min->half;
  r.diagnosis.push_back("the log's arithmetic: rest = A - F x (1 - " + python_float_repr(*mfs) +
                        ") = " + python_fixed(a_min->value, 2) + " - " +
                        python_fixed(f_min->value, 2) + " x " + python_fixed(1 - *mfs, 2) + " = " +
                        gib(rest) + " for the KV pool" + f_text);
  // The pool takes all of rest unless a cap or a draft model shares it.
  std::string shared;
  if (run.flag("--max-total-tokens") != nullptr) shared = "--max-total-tokens caps it";
  if (run.flag("--speculative-algorithm") != nullptr) shared = "a draft model shares it";
  if (rest > 0 && !shared.empty()) {
    r.diagnosis.push_back("the KV pool sizes are not predicted: " + shared);
  } else if (rest > 0) {
    for (const Observation& o : run.observations) {
      if (o.quantity == Quantity::kKvSize) {
        rows.predict(o, rest, half_unit(o.decimals) + kShownHalf + rest_half);
      } else if (o.quantity == Quantity::kKSize || o.quantity == Quantity::kVSize) {
        // K and V printed alike have equal widths: each takes half of rest.
        const Quantity other = o.quantity == Quantity::kKSize ? Quantity::kVSize : Quantity::kKSize;
        const auto twin = std::find_if(
            run.observations.begin(), run.observations.end(),
            [&](const Observation& x) { return x.quantity == other && x.line == o.line; });
        if (twin == run.observations.end() || twin->value != o.value) continue;
        rows.predict(o, rest / 2, half_unit(o.decimals) + kShownHalf + rest_half / 2);
      }
    }
    if (rows.predicted() > 0) {
      r.diagnosis.push_back(
          "the KV pool's K and V are predicted to take all of rest, as for a "
          "model without state pools (hybrid linear-attention models keep part "
          "of rest for them)");
    }
  }
  const bool fits = rest > 0;
  if (!fits) {
    r.diagnosis.push_back("the log's arithmetic: the KV pool would be empty: A is " +
                          gib(a_min->value) + ", below the " + gib(f_min->value * (1 - *mfs)) +
                          " SGLang keeps back of F; short by " + gib(-rest));
  }
  agreement(r, fits, {ProblemKind::kNotEnoughMemory});
  r.partial = PartialReplay{label(r), fits};
  if (fits) return true;
  // The worst case of the print rounding: F a half unit higher, A a half unit lower.
  const std::optional<double> m = sglang::smallest_mem_fraction_static(
      engine_gib(f_min->value + f_min->half), engine_gib(a_min->value - a_min->half));
  if (m) {
    const double left =
        sglang::profile_rest(engine_gib(f_min->value), engine_gib(a_min->value), *m).value();
    r.advice = "by the log's own figures:\n  --mem-fraction-static " + python_fixed(*m, 2) +
               ": rest = " + gib(left) +
               " for the KV pool (how many tokens it holds needs the model: name it with "
               "--model); it keeps back less of F for activations and CUDA graphs\n";
  } else {
    r.advice =
        "by the log's own figures:\n  no --mem-fraction-static below 1 leaves the KV pool "
        "any memory: the weights leave A = " +
        gib(a_min->value) + " of F = " + gib(f_min->value) + "\n";
  }
  return true;
}

}  // namespace

void partial_replay(RunExplanation& r, LogEngine engine, const ExplainContext& ctx) {
  // On a copy: a start-up whose figures determine nothing is left as it was.
  RunExplanation partial = r;
  if (engine == LogEngine::kVllm ? vllm_partial(partial, ctx) : sglang_partial(partial)) {
    r = std::move(partial);
  }
}

}  // namespace gpumem
