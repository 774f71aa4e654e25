// vLLM's memory arithmetic on a start-up's logged figures (partial_replay.h): the budget and
// the KV cache memory, the equivalent utilization of the CUDA-graph estimate, the maximum
// concurrency and the tokens storable, by release.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/diagnostics.h"
#include "core/python_format.h"
#include "engine/vllm/kv_sizing.h"
#include "engine/vllm/version.h"
#include "explain/partial_arithmetic.h"
#include "sim/device_constants.h"
#include "sim/sim_device.h"

namespace gpumem::partial {
namespace {

// vllm v0.21 v1/worker/gpu_worker.py determine_available_memory: with the CUDA-graph
// estimate applied, "The current --gpu-memory-utilization=U is equivalent to
// --gpu-memory-utilization=E without CUDA graph memory profiling", E = round(U - estimate /
// total, 4). With the total known it predicts E; without, E says the total.
void equivalent_utilization(RunExplanation& r, Rows& rows, std::optional<Bytes> total,
                            double total_half, const ExplainContext& ctx) {
  const LogRun& run = r.run;
  const Observation* e = run.first(Quantity::kEquivalentUtilization);
  const std::optional<double> util = flag_number(run, "--gpu-memory-utilization");
  if (e == nullptr || !util) return;
  const std::optional<Logged> estimate = first_of(run, Quantity::kCudaGraphEstimate, e->process);
  if (!estimate) return;
  const std::string est_text = python_fixed(estimate->value, 2);
  if (total) {
    const double t = to_gib(*total);
    const double predicted = *util - estimate->value / t;
    const double doubt = total_half > 0 ? total_half : ctx.tolerances.memory_gib;
    rows.pin(estimate);
    rows.predict(*e, predicted,
                 half_unit(e->decimals) + estimate->half / t + doubt * estimate->value / (t * t));
    r.diagnosis.push_back(
        "the log's arithmetic: --gpu-memory-utilization without the CUDA-graph "
        "estimate = " +
        python_fixed(*util, 4) + " - " + est_text + " / " + python_fixed(t, 2) + " = " +
        python_fixed(predicted, 4));
    return;
  }
  // E is rounded to 4 decimals: the estimate's share of the total is U - E within 0.00005.
  const double share = *util - e->value;
  const double share_half = half_unit(e->decimals);
  if (share - share_half <= 0) return;
  const double low = (estimate->value - estimate->half) / (share + share_half);
  const double high = (estimate->value + estimate->half) / (share - share_half);
  r.diagnosis.push_back(
      "the log's arithmetic: the GPU's CUDA total = CUDA-graph estimate / "
      "(--gpu-memory-utilization - its equivalent without the estimate) = " +
      est_text + " / " + python_fixed(share, 4) + ": " + gib(low) + " to " + gib(high) +
      " by the print rounding (line " + std::to_string(e->line) + ")");
}

// The latest figure `q` printed at or before `line`, by `process` where one is given.
const Observation* latest_before(const LogRun& run, Quantity q, int line,
                                 const std::string* process) {
  const Observation* found = nullptr;
  for (const Observation& o : run.observations) {
    if (o.quantity != q || o.line > line) continue;
    if (process != nullptr && o.process != *process) continue;
    if (found == nullptr || o.line >= found->line) found = &o;
  }
  return found;
}

// "Maximum concurrency for L tokens per request: Cx" against the KV cache it follows from.
void concurrency_check(RunExplanation& r, Rows& rows) {
  const LogRun& run = r.run;
  const std::optional<double> max_len = flag_number(run, "--max-model-len");
  if (!max_len || *max_len < 1) return;
  const double len = std::round(*max_len);
  // vllm v0.10.2 config/cache.py CacheConfig: block_size defaults to 16 tokens on CUDA.
  const double block = flag_number(run, "--block-size").value_or(16);
  bool reported = false;
  for (const Observation* c : run.all(Quantity::kMaxConcurrency)) {
    const Observation* tokens = latest_before(run, Quantity::kKvTokens, c->line, &c->process);
    const Observation* blocks = latest_before(run, Quantity::kGpuBlocks, c->line, nullptr);
    double predicted = 0;
    double tolerance = half_unit(c->decimals);
    std::string text;
    std::string caveat;
    if (tokens != nullptr) {
      // vllm v0.8.5 v1/core/kv_cache_utils.py _get_kv_cache_config_uniform_type: concurrency
      // = tokens / max_model_len; vllm v0.21 v1/core/kv_cache_utils.py get_kv_cache_capacity:
      // tokens = int(max_concurrency x max_model_len), for every model.
      const double exact = tokens->value / len;
      // vllm v0.10.2 v1/core/kv_cache_utils.py get_max_concurrency_for_kv_cache_config: one
      // group of full-attention layers takes cdiv(max_model_len, block_size) blocks a request,
      // and the token log is num_blocks x block_size (from v0.9: a 2025-06 log counts so).
      const double per_request = std::ceil(len / block) * block;
      const double whole = tokens->value / per_request;
      const std::string exact_text =
          "KV tokens / max model length = " + count_text(tokens->value) + " / " + count_text(len);
      const std::string whole_text = "KV tokens / (max model length in whole " + count_text(block) +
                                     "-token blocks) = " + count_text(tokens->value) + " / " +
                                     count_text(per_request);
      const std::string group_caveat =
          ", if the model's layers form one KV cache group (hybrid and sliding-window models "
          "count blocks per group)";
      const double tol = tolerance + 1 / len;
      const auto fits = [&](double v) { return std::fabs(v - c->value) <= tol + 1e-9; };
      std::optional<vllm::Version> printed;
      if (run.version) printed = vllm::parse_version(*run.version);
      if (printed) {
        // The release the log prints decides the rule; a miss is a miss.
        const bool counts_blocks =
            *printed >= vllm::Version{0, 9, 0, 0} && *printed < vllm::Version{0, 21, 0, 0};
        predicted = counts_blocks ? whole : exact;
        text = counts_blocks ? whole_text : exact_text;
        if (counts_blocks) caveat = group_caveat;
      } else if (fits(exact) || fits(whole)) {
        // Without a printed release, the rule whose figure the log shows: the release and,
        // for whole blocks, one KV cache group are what it assumes.
        const bool counts_blocks = !fits(exact);
        predicted = counts_blocks ? whole : exact;
        text = counts_blocks ? whole_text : exact_text;
        if (counts_blocks) {
          caveat =
              ", as v0.9 to v0.20 count it for a model whose layers form one KV cache "
              "group (the release is not printed)";
        }
      } else {
        // Neither: a release before v0.21.0 and a model with several KV cache groups, whose
        // blocks per request the model would say.
        if (!reported) {
          reported = true;
          r.diagnosis.push_back(
              "the log's arithmetic: maximum concurrency " + python_fixed(c->value, 2) +
              "x is neither KV tokens / max model length (" + python_fixed(exact, 2) +
              "x) nor its whole " + count_text(block) + "-token blocks (" + python_fixed(whole, 2) +
              "x): the release, not printed, is older than v0.21.0 (from it the token count is "
              "concurrency x max model length for every model), and the model's KV cache has "
              "several groups (hybrid or sliding-window layers), whose blocks per request the "
              "model would say: not predicted");
        }
        continue;
      }
      tolerance = tol;
    } else if (blocks != nullptr) {
      // vllm v0.7.3 executor/executor_base.py initialize_cache: max_concurrency =
      // num_gpu_blocks x block_size / max_model_len.
      predicted = blocks->value * block / len;
      text = "GPU blocks x block size / max model length = " + count_text(blocks->value) + " x " +
             count_text(block) + " / " + count_text(len);
    } else {
      continue;
    }
    rows.predict(*c, predicted, tolerance);
    if (reported) continue;
    reported = true;
    r.diagnosis.push_back("the log's arithmetic: maximum concurrency = " + text + " = " +
                          python_fixed(predicted, 2) + "x" + caveat);
  }
}

// vllm v0.7.3 worker/worker.py raise_if_cache_size_invalid: the tokens the KV cache can store
// are block_size x num_gpu_blocks.
void storable_check(RunExplanation& r, Rows& rows) {
  const LogRun& run = r.run;
  const Observation* storable = run.first(Quantity::kKvTokensStorable);
  const Observation* blocks =
      storable == nullptr ? nullptr
                          : latest_before(run, Quantity::kGpuBlocks, storable->line, nullptr);
  if (blocks == nullptr) return;
  const double block = flag_number(run, "--block-size").value_or(16);
  rows.predict(*storable, blocks->value * block, 0);
  r.diagnosis.push_back("the log's arithmetic: KV tokens storable = GPU blocks x block size = " +
                        count_text(blocks->value) + " x " + count_text(block) + " = " +
                        count_text(blocks->value * block));
}

}  // namespace

// vllm gpu_worker.py determine_available_memory and kv_cache_utils.py
// check_enough_kv_cache_memory, from the figures the log prints.
bool vllm_partial(RunExplanation& r, const ExplainContext& ctx) {
  const LogRun& run = r.run;
  const std::optional<vllm::Version> version = vllm::parse_version(r.implied.version.value);
  if (!version) return false;
  const vllm::VersionRules rules = vllm::rules_for(*version);
  release_caveat(r);
  Rows rows(r);
  total_check(r, rows, ctx);
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
  equivalent_utilization(r, rows, total, total_half, ctx);
  concurrency_check(r, rows);
  storable_check(r, rows);
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
  if (!decided) fits = !memory_failure(run);
  r.partial = PartialReplay{label(r), fits};
  // Advice follows from the KV cache arithmetic only where it decided the fit.
  if (fits || !decided) return true;

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

}  // namespace gpumem::partial
