#include "explain/model_inference.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "catalog/quantization_by_name.h"
#include "core/python_format.h"
#include "explain/model_choice.h"
#include "explain/model_from_figures.h"
#include "runtime/fact_ids.h"

namespace gpumem {

// Bytes one KV token takes on `g` (SGLang's cell size; vLLM's KV memory over its tokens).
std::optional<double> bytes_per_token(const GpuLedger& g, LogEngine engine) {
  if (engine == LogEngine::kSglang) return g.fact_number(fact_id::kKvCellBytes);
  const std::optional<double> kv = g.fact_number(fact_id::kKvBytes);
  const std::optional<double> tokens = g.fact_number(fact_id::kKvTokens);
  if (!kv || !tokens || *tokens <= 0) return std::nullopt;
  return *kv / *tokens;
}

namespace {

// The GPUs one copy of the weights is split over: TP x PP as the scenario states them.
int weight_shards(const ImpliedScenario& s) {
  const bool sglang = s.engine == LogEngine::kSglang;
  std::int64_t shards = 1;
  for (const LoggedFlag& f : s.args) {
    const bool split = f.flag == (sglang ? "--tp-size" : "--tensor-parallel-size") ||
                       f.flag == (sglang ? "--pp-size" : "--pipeline-parallel-size");
    if (!split || f.values.size() != 1) continue;
    try {
      shards *= std::clamp<std::int64_t>(std::stoll(f.values.front()), 1, 4096);
    } catch (const std::exception&) {
      continue;
    }
  }
  return static_cast<int>(std::min<std::int64_t>(shards, 1 << 20));
}

// The weights a trial replay predicts for the log's weights line, and its bytes per KV token on
// the GPU that printed it.
std::optional<std::pair<double, std::optional<double>>> trial_figures(const RunExplanation& t,
                                                                      const ModelEvidence& e,
                                                                      LogEngine engine) {
  for (const FigureCheck& c : t.figures) {
    if (c.line != e.weights.line || c.quantity != e.weights.quantity || !c.predicted) continue;
    for (const GpuLedger& g : t.ledger->gpus) {
      if (g.rank == c.gpu) return std::pair{*c.predicted, bytes_per_token(g, engine)};
    }
  }
  return std::nullopt;
}

}  // namespace

void identify_model(ImpliedScenario& s, const LogRun& run, LogEngine engine,
                    const ExplainOverrides& overrides, const ExplainContext& ctx,
                    const TrialReplay& trial_replay) {
  const std::optional<ModelEvidence> e = model_evidence(run, engine);
  if (!e || !e->sufficient()) return;
  const std::vector<std::string> candidates = size_candidates(*e, weight_shards(s), ctx.models);
  std::vector<std::string> fit;
  // Each fitting replay's free memory after every step of every GPU: models whose replays
  // agree to the byte are the same model to this launch.
  std::vector<std::vector<std::int64_t>> replays;
  for (const std::string& ref : candidates) {
    ExplainOverrides trial = overrides;
    trial.model = ref;
    trial.from_scratch = true;
    const RunExplanation t = trial_replay(trial, ctx);
    if (!t.replayed()) continue;
    const auto figures = trial_figures(t, *e, engine);
    if (!figures || !figures_agree(*e, figures->first, figures->second)) continue;
    fit.push_back(ref);
    std::vector<std::int64_t>& free = replays.emplace_back();
    for (const GpuLedger& g : t.ledger->gpus) {
      for (const LedgerStep& step : g.steps) free.push_back(step.free_after.value());
    }
  }
  const bool alike =
      !fit.empty() && std::all_of(replays.begin(), replays.end(),
                                  [&](const auto& r) { return r == replays.front(); });
  const std::string evidence =
      "the weights (" + python_fixed(e->weights.value, std::max(e->weights.decimals, 0)) +
      " GiB, line " + std::to_string(e->weights.line) + ")" +
      (e->architecture.empty() ? "" : ", the class " + e->architecture) +
      (e->kv_bytes_per_token
           ? ", " + python_fixed(*e->kv_bytes_per_token, 0) + " bytes per KV token"
           : "");
  std::string names;
  for (const std::string& f : fit) names += (names.empty() ? "" : ", ") + f;
  if (alike) {
    Diagnostics ignored;
    const Result<ResolvedModel> m = ctx.models.resolve(fit.front(), "", ignored);
    const std::string which =
        fit.size() == 1 ? "the only one whose replay prints them"
                        : "the " + std::to_string(fit.size()) + " whose replays print them (" +
                              names + ") replay this launch to the byte alike; the first is taken";
    s.model = {fit.front(),
               "the log names no model; inferred from " + evidence + ": of the " +
                   std::to_string(candidates.size()) +
                   " catalog and bundled models of that size, " + which +
                   (m.ok() ? " (" + m.value().origin + ")" : "") +
                   "; if it ran another, name it with --model",
               {e->weights.line, 0}};
    s.model_resolved = true;
    return;
  }
  std::string sized;
  for (const std::string& c : candidates) sized += (sized.empty() ? "" : ", ") + c;
  if (candidates.empty()) {
    s.model.note += "; no catalog or bundled model comes near " + evidence;
  } else if (fit.empty()) {
    s.model.note += "; no replay of the " + std::to_string(candidates.size()) +
                    " catalog and bundled models near that size (" + sized + ") prints " + evidence;
  } else {
    s.model.note += "; " + evidence + " fit " + std::to_string(fit.size()) + " models (" + names +
                    "), whose replays differ: name one with --model";
  }
}

std::optional<QuantizedReading> read_quantized_variant(const ImpliedScenario& s, const LogRun& run,
                                                       LogEngine engine,
                                                       const ExplainOverrides& overrides,
                                                       const ExplainContext& ctx,
                                                       const TrialReplay& trial_replay) {
  const std::string& logged = s.model.value;
  const std::optional<Sourced> base = variant_of(logged, ctx.models);
  const std::vector<NamedQuantization> named = quantizations_in_name(logged);
  if (!base || named.empty()) return std::nullopt;
  Diagnostics ignored;
  const Result<ResolvedModel> resolved = ctx.models.resolve(base->value, "", ignored);
  if (!resolved.ok()) return std::nullopt;
  // The log's weights; the model class is the base's, unless the log prints another.
  std::optional<ModelEvidence> e = model_evidence(run, engine);
  const std::string& base_class = resolved.value().architecture.hf_architecture;
  if (e && !e->architecture.empty() && e->architecture != base_class) return std::nullopt;
  if (e) e->architecture = base_class;
  struct Fit {
    ModelCatalog models;
    std::string label;
    std::optional<double> weights_gib;
  };
  std::optional<Fit> best;
  std::string contradicted;  // each replayed reading's weights, where they miss the log's
  ExplainOverrides trial = overrides;
  trial.model = logged;
  trial.from_scratch = true;
  for (const NamedQuantization& q : named) {
    Result<Architecture> a = with_named_quantization(resolved.value().architecture, q);
    if (!a.ok()) continue;
    a->name = logged;
    ModelCatalog models = ctx.models.with_model(
        logged,
        ResolvedModel{std::move(*a),
                      "quantized " + logged,
                      resolved.value().origin + ", quantized as the name states: " + q.label,
                      std::nullopt,
                      {}});
    if (!e) {
      best = Fit{std::move(models), q.label, std::nullopt};
      break;
    }
    const ExplainContext with{ctx.gpus, models, ctx.constants, ctx.tolerances};
    const RunExplanation t = trial_replay(trial, with);
    if (!t.replayed()) continue;
    const auto figures = trial_figures(t, *e, engine);
    if (!figures) continue;
    if (!figures_agree(*e, figures->first, figures->second)) {
      contradicted += (contradicted.empty() ? "" : ", ") + q.label + ": " +
                      python_fixed(figures->first, 2) + " GiB";
      continue;
    }
    if (!best || std::fabs(figures->first - e->weights.value) <
                     std::fabs(*best->weights_gib - e->weights.value)) {
      best = Fit{std::move(models), q.label, figures->first};
    }
  }
  if (!best && !contradicted.empty()) {
    return QuantizedReading{std::nullopt,
                            s.model.note + "; its name states a quantization of " + base->value +
                                ", but no such reading prints the logged weights (" +
                                python_fixed(e->weights.value, std::max(e->weights.decimals, 0)) +
                                " GiB, line " + std::to_string(e->weights.line) + "; predicted " +
                                contradicted + ")"};
  }
  if (!best) return std::nullopt;
  std::string evidence = "; nothing confirms it: the log prints no weights figure";
  if (best->weights_gib) {
    const int decimals = std::max(e->weights.decimals, 0);
    evidence = ", which the weights confirm: " + python_fixed(*best->weights_gib, decimals) +
               " GiB predicted, " + python_fixed(e->weights.value, decimals) +
               " GiB logged (line " + std::to_string(e->weights.line) + ")";
  }
  return QuantizedReading{std::move(best->models),
                          s.model.note + "; read as " + base->value +
                              " quantized as its name states (" + best->label + ")" + evidence +
                              "; give the checkpoint's config.json with --model to read its own"};
}

}  // namespace gpumem
