#include "explain/explanation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <variant>

#include "core/python_format.h"
#include "explain/gpu_choice.h"
#include "explain/log_reader.h"
#include "explain/log_scan.h"
#include "explain/model_inference.h"
#include "explain/partial_replay.h"
#include "explain/version_choice.h"
#include "runtime/fact_ids.h"
#include "simulate/fit_advice.h"

namespace gpumem {
namespace {

constexpr double kBytesPerGib = static_cast<double>(1LL << 30);

double half_unit(int decimals) { return decimals < 0 ? 0.0 : 0.5 * std::pow(10.0, -decimals); }

// The quantity an `observed` key pins.
std::optional<Quantity> pinned_quantity(const std::string& key) {
  if (key == "free_before_weights") return Quantity::kFreeBeforeWeights;
  if (key == "free_after_weights") return Quantity::kFreeAfterWeights;
  if (key == "model_loading") return Quantity::kModelLoading;
  if (key == "activation_peak") return Quantity::kActivationPeak;
  if (key == "non_torch_memory") return Quantity::kNonTorchMemory;
  if (key == "cuda_graph_estimate") return Quantity::kCudaGraphEstimate;
  if (key == "kv_cache_memory") return Quantity::kAvailableKvMemory;
  if (key == "cuda_total") return Quantity::kTotalMemory;  // the replay's GPU has it
  // The memory other processes held (hardware.preoccupied), read from the free memory the
  // engine found at start-up.
  if (key == "free_at_startup") return Quantity::kFreeAtStartup;
  return std::nullopt;
}

// The replay's log of one GPU, read like the real one.
LogRun predicted_run(const GpuLedger& g, LogEngine engine) {
  std::string text;
  for (const LedgerStep& s : g.steps) {
    for (const std::string& line : s.log_lines) text += line + "\n";
  }
  Result<StartupLog> log = read_startup_log(text, engine);
  if (!log.ok() || log.value().runs.empty()) return {};
  return log.value().runs.front();
}

// A figure the replay's log does not print (a failed step stops the lines after it; V0-only
// lines), taken from the replay's facts where it holds the same quantity.
std::optional<double> from_facts(const GpuLedger& g, Quantity q) {
  const auto gib = [](std::optional<double> b) -> std::optional<double> {
    if (!b) return std::nullopt;
    return *b / kBytesPerGib;
  };
  switch (q) {
    case Quantity::kTotalMemory:
      return gib(static_cast<double>(g.total.value()));
    case Quantity::kRequestedMemory:
      return gib(g.fact_number(fact_id::kRequestedMemory));
    case Quantity::kGpuBlocks:
      return g.fact_number(fact_id::kKvBlocks);
    case Quantity::kSwaKvTokens:
      return g.fact_number(fact_id::kSwaKvTokens);
    case Quantity::kPeakTorchMemory: {
      // vllm v0.6.4 worker.py: peak_torch_memory is the weights plus the activation peak.
      const std::optional<double> w = g.fact_number(fact_id::kWeightsBytes);
      const std::optional<double> a = g.fact_number(fact_id::kActivationPeakBytes);
      if (!w || !a) return std::nullopt;
      return gib(*w + *a);
    }
    case Quantity::kKvTokens:
    case Quantity::kKvTokensStorable: {
      if (std::optional<double> t = g.fact_number(fact_id::kKvTokens)) return t;
      // vllm v0.10.2 v1/core/kv_cache_utils.py check_enough_kv_cache_memory: the error states the
      // longest request the cache holds.
      const LedgerStep* failed = g.failed_step();
      if (failed == nullptr) return std::nullopt;
      const std::optional<PrintedNumber> n =
          number_after(failed->message, "estimated maximum model length is ");
      if (!n) return std::nullopt;
      return n->value;
    }
    default:
      return std::nullopt;
  }
}

// How uncertain the KV input of a replay is, in bytes: half a unit of the pinned input's
// last printed digit; the memory tolerance when the KV input is predicted, not pinned.
double kv_input_uncertainty(const RunExplanation& r, LogEngine engine, const ExplainTolerances& t) {
  const std::string key = engine == LogEngine::kSglang ? "free_after_weights" : "kv_cache_memory";
  for (const Pin& p : r.pins) {
    if (p.key != key || std::find(r.pinned.begin(), r.pinned.end(), key) == r.pinned.end()) {
      continue;
    }
    if (p.size.back() == 'B' && p.size.find("GiB") == std::string::npos) return 0;  // exact
    const size_t dot = p.size.find('.');
    const int decimals =
        dot == std::string::npos ? 0 : static_cast<int>(p.size.size() - 3 - dot - 1);
    return half_unit(decimals) * kBytesPerGib;
  }
  return t.memory_gib * kBytesPerGib;
}

// The replay's GPU of a logged figure: its rank within its pipeline stage, the stages
// laid out one after the other (TP size = GPUs / stages).
const GpuLedger* ledger_gpu(const Ledger& l, const Observation& o, int stages) {
  const int per_stage = std::max(static_cast<int>(l.gpus.size()) / std::max(stages, 1), 1);
  const int rank = o.pp.value_or(0) * per_stage + o.rank.value_or(0);
  for (const GpuLedger& g : l.gpus) {
    if (g.rank == rank) return &g;
  }
  return l.gpus.empty() ? nullptr : &l.gpus.front();
}

// A logged figure, before any prediction is set beside it.
FigureCheck logged_figure(const Observation& o) {
  FigureCheck c;
  c.quantity = o.quantity;
  c.logged = o.value;
  c.decimals = o.decimals;
  c.line = o.line;
  c.process = o.process;
  return c;
}

void compare(RunExplanation& r, LogEngine engine, const ExplainTolerances& t) {
  const Ledger& ledger = *r.ledger;
  int stages = 1;
  for (const Observation& o : r.run.observations) stages = std::max(stages, o.pp.value_or(0) + 1);
  for (const Observation& o : r.run.observations) {
    FigureCheck c = logged_figure(o);
    const GpuLedger* g = ledger_gpu(ledger, o, stages);
    if (g == nullptr) continue;
    c.gpu = g->rank;
    const LogRun predicted = predicted_run(*g, engine);
    const Observation* p = predicted.first(o.quantity);
    const bool pinned = std::any_of(r.pinned.begin(), r.pinned.end(), [&](const std::string& k) {
      return pinned_quantity(k) == o.quantity;
    });
    if (p != nullptr) {
      c.predicted = p->value;
    } else {
      c.predicted = from_facts(*g, o.quantity);
    }
    switch (quantity_unit(o.quantity)) {
      case FigureUnit::kGiB:
        c.tolerance = t.memory_gib + half_unit(o.decimals) + (p ? half_unit(p->decimals) : 0);
        break;
      case FigureUnit::kCount:
      case FigureUnit::kRatio: {
        if (o.quantity == Quantity::kEquivalentUtilization) {
          // U - estimate / total: the estimate's memory tolerance as a share of the GPU.
          const Observation* total = predicted.first(Quantity::kTotalMemory);
          c.tolerance = half_unit(o.decimals) + (p ? half_unit(p->decimals) : 0) +
                        (total != nullptr && total->value > 0 ? t.memory_gib / total->value : 0);
          break;
        }
        const std::optional<double> per_token = bytes_per_token(*g, engine);
        double tokens = per_token ? std::ceil(kv_input_uncertainty(r, engine, t) / *per_token) : 0;
        if (engine == LogEngine::kVllm) tokens += t.vllm_block_tokens;
        const std::optional<double> kv_tokens = g->fact_number(fact_id::kKvTokens);
        if (o.quantity == Quantity::kKvTokens || o.quantity == Quantity::kKvTokensStorable) {
          c.tolerance = tokens;
        } else if (o.quantity == Quantity::kGpuBlocks) {
          c.tolerance = std::ceil(tokens / t.vllm_block_tokens);
        } else if (kv_tokens && *kv_tokens > 0) {
          // Requests and concurrency scale with the token count.
          c.tolerance = o.value * tokens / *kv_tokens + half_unit(o.decimals) +
                        (o.quantity == Quantity::kMaxRunningRequests ? 1 : 0);
        }
        break;
      }
    }
    if (pinned) {
      c.verdict = Verdict::kPinned;
    } else if (!c.predicted) {
      c.verdict = Verdict::kNotPredicted;
    } else {
      c.verdict = std::fabs(*c.predicted - c.logged) <= c.tolerance + 1e-9 ? Verdict::kMatch
                                                                           : Verdict::kMiss;
    }
    r.figures.push_back(c);
  }
  // Phase by phase: in the order the log printed them.
  std::stable_sort(r.figures.begin(), r.figures.end(),
                   [](const FigureCheck& a, const FigureCheck& b) { return a.line < b.line; });
}

// What other processes held on each GPU of the box, by GPU index: a vLLM start-up that found
// less memory free than the engine alone leaves (vllm v1/worker/gpu_worker.py init_device
// takes its snapshot after the context and the communicators; the rest of the device was in
// use already). Empty when every logged figure is within tolerance of the replay's.
struct OtherProcesses {
  std::map<int, Bytes> held;  // by GPU index within a node
  std::vector<Pin> pins;      // one per figure that shows it, for the report
};

OtherProcesses held_by_other_processes(const RunExplanation& r, int gpus_per_node) {
  OtherProcesses o;
  for (const FigureCheck& c : r.figures) {
    if (c.quantity != Quantity::kFreeAtStartup || !c.predicted) continue;
    const double gap = *c.predicted - c.logged;
    if (gap <= c.tolerance) continue;
    const Bytes b = bytes(std::llround(gap * kBytesPerGib));
    Bytes& slot = o.held[c.gpu % std::max(gpus_per_node, 1)];
    slot = std::max(slot, b);
    o.pins.push_back({"free_at_startup",
                      python_fixed(c.logged, c.decimals) + "GiB",
                      "line " + std::to_string(c.line) + ": other processes held " +
                          python_fixed(gap, 2) + " GiB of GPU " + std::to_string(c.gpu) +
                          " (the engine alone leaves " + python_fixed(*c.predicted, 2) +
                          " GiB free)",
                      {c.line, 0}});
  }
  return o;
}

std::string problem_text(const LoggedProblem& p) {
  switch (p.kind) {
    case ProblemKind::kOutOfMemory:
      return "CUDA out of memory";
    case ProblemKind::kKvCacheTooSmall:
      return "the KV cache cannot hold one request of the maximum length";
    case ProblemKind::kNoKvMemory:
      return "no memory left for the KV cache";
    case ProblemKind::kBudget:
      return "free memory below the --gpu-memory-utilization budget";
    case ProblemKind::kNotEnoughMemory:
      return "the KV pool would be empty (Not enough memory)";
    case ProblemKind::kImbalance:
      return "memory unbalanced between ranks";
    case ProblemKind::kOtherError:
      break;
  }
  constexpr size_t kShown = 160;
  return "error: '" +
         (p.message.size() > kShown ? p.message.substr(0, kShown) + "..." : p.message) + "'";
}

// The logged figures alone, for a start-up that is not replayed; a figure's GPU is its rank
// within its pipeline stage, the stages as wide as the highest rank the log names (as the
// implied scenario reads the TP size). vLLM lays its data-parallel engines out one after the
// other, each a PP x TP group (vllm v0.11.0 config/parallel.py world_size_across_dp; its EP
// rank, "Worker_DP1_TP1_EP3", is that global rank); SGLang's "DP1 TP3" names the TP rank
// across its DP-attention groups, which is the GPU.
void logged_only(RunExplanation& r) {
  int per_stage = 1;
  int stages = 1;
  for (const Observation& o : r.run.observations) {
    per_stage = std::max(per_stage, o.rank.value_or(0) + 1);
    stages = std::max(stages, o.pp.value_or(0) + 1);
  }
  const int dp_stride = r.implied.engine == LogEngine::kVllm ? stages * per_stage : 0;
  for (const Observation& o : r.run.observations) {
    FigureCheck c = logged_figure(o);
    c.gpu = o.dp.value_or(0) * dp_stride + o.pp.value_or(0) * per_stage + o.rank.value_or(0);
    r.figures.push_back(c);
  }
  std::stable_sort(r.figures.begin(), r.figures.end(),
                   [](const FigureCheck& a, const FigureCheck& b) { return a.line < b.line; });
}

// Where a start-up step or a logged phase stands in the start-up (both engines run them in
// this order; SGLang's cuBLAS and attention-backend set-up come after its KV pool): a log that
// stops before the step gpumem fails at cannot show that failure.
int startup_stage(std::string_view name) {
  static constexpr std::pair<std::string_view, int> kStages[] = {
      {"context", 1},          {"distributed", 1},       {"memory_snapshot", 1},
      {"free_memory", 1},      {"model_runner", 2},      {"weights", 2},
      {"draft_weights", 3},    {"draft weights", 3},     {"draft_shares_target_embedding", 3},
      {"profile_run", 4},      {"profile", 4},           {"cuda_graph_estimate", 4},
      {"kv_cache", 5},         {"kv cache", 5},          {"draft_kv_cache", 5},
      {"cublas", 5},           {"attention_backend", 5}, {"cuda_graphs", 6},
      {"cuda graphs", 6},      {"draft_cuda_graphs", 7}, {"draft cuda graphs", 7},
      {"cuda graphs done", 8}, {"sampler_warmup", 8},    {"ready", 9}};
  for (const auto& [stage_name, stage] : kStages) {
    if (stage_name == name) return stage;
  }
  return 0;
}

// What the log itself says about how the start-up ended.
void log_outcome(RunExplanation& r) {
  if (!r.run.problems.empty()) {
    // The first failure the reader can name (out of memory, KV cache too small, ...) says
    // more than an error line before it ("Error executing method ...", "EngineCore failed"),
    // and so does the exception a traceback ends with.
    const auto& problems = r.run.problems;
    auto shown = std::find_if(problems.begin(), problems.end(), [](const LoggedProblem& q) {
      return q.kind != ProblemKind::kOtherError;
    });
    if (shown == problems.end()) {
      shown = std::find_if(problems.begin(), problems.end(),
                           [](const LoggedProblem& q) { return q.exception; });
    }
    const LoggedProblem& p = shown != problems.end() ? *shown : problems.front();
    std::string text = "the log: start-up failed at line " + std::to_string(p.line) +
                       (p.process.empty() ? "" : " (" + p.process + ")") + ": " + problem_text(p);
    if (p.requested_gib && p.free_gib) {
      // Below a GiB in MiB, as torch prints it: "20.00 MiB with 43.75 MiB free".
      const auto amount = [](double gib) {
        return gib < 1 ? python_fixed(gib * 1024, 2) + " MiB" : python_fixed(gib, 2) + " GiB";
      };
      text += ", asking " + amount(*p.requested_gib) + " with " + amount(*p.free_gib) + " free";
      text += *p.requested_gib > *p.free_gib
                  ? " (short by " + amount(*p.requested_gib - *p.free_gib) + ")"
                  : " (no shortfall in the figures: CUDA could not hand out what it reported "
                    "free, which the driver's own reservations and fragments hold)";
    }
    r.diagnosis.push_back(text);
  } else if (!r.run.phases.empty()) {
    const PhaseMark& last = r.run.phases.back();
    r.diagnosis.push_back("the log: no error; the last phase it shows is '" + last.phase +
                          "' (line " + std::to_string(last.line) + ")");
  }
}

void diagnose(RunExplanation& r, const Scenario& scenario, const SimulationInputs& inputs) {
  const Ledger& l = *r.ledger;
  const GpuLedger* failed = l.first_failure();
  const GpuLedger& shown = failed != nullptr ? *failed : l.gpus.front();
  std::string went = "where memory went on GPU " + std::to_string(shown.rank) + " (replay): ";
  bool first = true;
  for (const LedgerStep& s : shown.steps) {
    // Below what two decimals of GiB show.
    if (std::llabs(s.delta().value()) < (5LL << 20)) continue;
    went += (first ? "" : ", ") + s.name + " " + format_gib(s.delta());
    first = false;
  }
  if (!shown.steps.empty())
    went +=
        "; " + format_gib(shown.steps.back().free_after) + " free after " + shown.steps.back().name;
  r.diagnosis.push_back(went);
  if (r.implied.version_older_than_modelled && r.scenario_file.empty()) {
    r.diagnosis.push_back("the log's release is older than every release gpumem models (" +
                          r.implied.version.value +
                          " is replayed): a miss may be the engine's history, not the model's");
  }
  if (r.implied.version_newer_than_modelled && r.scenario_file.empty()) {
    r.diagnosis.push_back("the log's release is newer than every release gpumem models (" +
                          r.implied.version.value +
                          " is replayed): a miss may be the engine's newer rules, not the "
                          "model's");
  }
  log_outcome(r);
  if (failed != nullptr) {
    const LedgerStep& s = *failed->failed_step();
    std::string text = "gpumem: GPU " + std::to_string(failed->rank) + " fails at step '" + s.name +
                       "' (" + std::string(outcome_name(s.outcome)) + ")";
    if (s.outcome == StepOutcome::kOutOfMemory) {
      text += ": it asks " + format_gib(s.requested) + " with " + format_gib(s.free_at_failure) +
              " free, short by " + format_gib(s.requested - s.free_at_failure);
    } else if (!s.message.empty()) {
      text += ": " + s.message;
    }
    r.diagnosis.push_back(text);
    const int failing_stage = startup_stage(s.name);
    const bool stops_before = r.run.problems.empty() && !r.run.phases.empty() &&
                              failing_stage > 0 &&
                              startup_stage(r.run.phases.back().phase) < failing_stage;
    if (stops_before) {
      r.diagnosis.push_back("the log stops at '" + r.run.phases.back().phase + "' (line " +
                            std::to_string(r.run.phases.back().line) + "), before step '" + s.name +
                            "': it neither shows nor rules out the failure gpumem "
                            "predicts");
    } else {
      r.diagnosis.push_back(r.run.problems.empty()
                                ? "MISS: the log shows no failure, gpumem predicts one"
                                : "agrees with the log: the start-up does not fit");
    }
    // A pinned KV size would hide every change of the memory fraction from the advice.
    Scenario unpinned = scenario;
    unpinned.observed.kv_cache_memory.reset();
    r.advice = advise_fit(find_fit(unpinned, inputs, l), unpinned);
    if (const std::optional<PrintedNumber> n =
            number_after(s.message, "estimated maximum model length is ")) {
      r.diagnosis.push_back("smallest change of the request length: --max-model-len " +
                            std::to_string(std::llround(n->value)) +
                            " (vLLM's own estimate of what the KV cache holds)");
    }
  } else {
    r.diagnosis.push_back("gpumem: every GPU completes its start-up");
    const bool memory_failure =
        std::any_of(r.run.problems.begin(), r.run.problems.end(),
                    [](const LoggedProblem& p) { return p.kind != ProblemKind::kOtherError; });
    if (memory_failure) {
      r.diagnosis.push_back("MISS: the log shows a failure that gpumem does not predict");
    } else if (!r.run.problems.empty()) {
      r.diagnosis.push_back(
          "the log's error is none that memory explains by its words (an error line, not an "
          "out-of-memory or a KV cache failure): gpumem does not judge it");
    }
  }
}

void fill_gaps(ImpliedScenario& s, const LogRun& run, const ExplainOverrides& o,
               const ExplainContext& ctx) {
  if (!o.engine_version.empty()) {
    // A release the engine does not have stays as given: the scenario's reader refuses it
    // with the releases gpumem models.
    const VersionChoice v =
        given_version(run, s.engine, o.engine_version)
            .value_or(VersionChoice{
                o.engine_version, "given with --engine-version " + o.engine_version, false, false});
    s.version = {v.version, v.note, {}};
    s.version_older_than_modelled = v.older_than_modelled;
    s.version_newer_than_modelled = v.newer_than_modelled;
  }
  if (!o.gpu.empty()) {
    std::optional<GpuChoice> g = gpu_from_option(ctx.gpus, o.gpu);
    if (!g) {
      g = GpuChoice{"",
                    "--gpu " + o.gpu +
                        " is neither a GPU of the catalog (by name, alias or nvidia-smi name) nor "
                        "a size",
                    {},
                    std::nullopt,
                    ""};
    }
    s.gpu = {g->name, g->note, {}};
    s.unlisted_gpu = std::move(g->unlisted);
    s.gpu_template = g->template_name;
    s.gpu_by_nearest_total = false;
  }
  if (!o.model.empty()) {
    // Any model reference a scenario's `model:` takes (catalog/model_reference.h).
    Diagnostics why;
    const Result<ResolvedModel> m = ctx.models.resolve(o.model, "", why);
    s.model_resolved = m.ok();
    std::string note = "given with --model";
    if (m.ok() && !m.value().identity.starts_with("catalog ")) note += ": " + m.value().origin;
    if (!m.ok()) note = "--model " + o.model + ": " + m.status().message();
    s.model = {o.model, note, {}};
  }
  if (o.gpu_count > 0) set_gpu_count(s, o.gpu_count);
}

// The errors of `d`, those about a line of the implied scenario `yaml_file` reported at the
// place in the log that line's value came from.
std::string join_diagnostics(const Diagnostics& d, const std::string& yaml_file,
                             const ImpliedYaml* yaml, const std::string& log_file) {
  std::string out;
  for (Diagnostic e : d.errors()) {
    if (yaml != nullptr && e.loc.file == yaml_file && e.loc.line >= 1 &&
        static_cast<size_t>(e.loc.line) <= yaml->sources.size()) {
      const LogPosition at = yaml->sources[static_cast<size_t>(e.loc.line) - 1];
      if (at.line > 0) e.loc = {log_file, at.line, at.column};
    }
    out += (out.empty() ? "" : "; ") + e.to_string();
  }
  return out;
}

RunExplanation replay_run(const LogRun& run, LogEngine engine, const std::string& log_file,
                          const std::string& name, const Scenario* user,
                          const ExplainOverrides& overrides, const ExplainContext& ctx,
                          bool advise);

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kMatch:
      return "ok";
    case Verdict::kMiss:
      return "MISS";
    case Verdict::kPinned:
      return "pinned";
    case Verdict::kNotPredicted:
      return "not predicted";
  }
  return "";
}

RunExplanation explain_run(const LogRun& run, LogEngine engine, const std::string& log_file,
                           const std::string& name, const Scenario* user,
                           const ExplainOverrides& overrides, const ExplainContext& ctx,
                           bool advise) {
  return replay_run(run, engine, log_file, name, user, overrides, ctx, advise);
}

namespace {

RunExplanation replay_run(const LogRun& run, LogEngine engine, const std::string& log_file,
                          const std::string& name, const Scenario* user,
                          const ExplainOverrides& overrides, const ExplainContext& ctx,
                          bool advise) {
  RunExplanation r;
  r.run = run;
  r.first_line = run.first_line;
  r.last_line = run.last_line;
  r.implied = infer_scenario(run, engine, name, ctx.gpus, ctx.models);
  fill_gaps(r.implied, run, overrides, ctx);
  const TrialReplay trial = [&](const ExplainOverrides& o, const ExplainContext& c) {
    return replay_run(run, engine, log_file, name, nullptr, o, c, false);
  };
  if (user == nullptr && overrides.model.empty() && !r.implied.model_resolved &&
      r.implied.model.value.empty() && !r.implied.gpu.value.empty()) {
    identify_model(r.implied, run, engine, overrides, ctx, trial);
  }
  if (user == nullptr && !r.implied.model_resolved && !r.implied.model.value.empty() &&
      !r.implied.gpu.value.empty()) {
    std::optional<QuantizedReading> q =
        read_quantized_variant(r.implied, run, engine, overrides, ctx, trial);
    if (q && !q->models) r.implied.model.note = q->note;
    if (q && q->models) {
      // The replay proper, its model the reading the derived catalog resolves the name to.
      ExplainOverrides named = overrides;
      named.model = r.implied.model.value;
      const ExplainContext with{ctx.gpus, *q->models, ctx.constants, ctx.tolerances};
      RunExplanation v = replay_run(run, engine, log_file, name, nullptr, named, with, advise);
      v.implied.model.note = q->note;
      v.implied.model.at = r.implied.model.at;
      return v;
    }
  }
  r.from_scratch = overrides.from_scratch;
  if (!r.from_scratch) r.pins = r.implied.pins;
  // A pinned replay runs on the box's own CUDA total where the log prints one (a partial
  // replay checks that total against the catalog GPU instead).
  const GpuSpec* chosen = r.implied.unlisted_gpu ? nullptr : ctx.gpus.find(r.implied.gpu.value);
  std::optional<GpuChoice> own_total;
  if (!r.from_scratch && user == nullptr && chosen != nullptr && r.implied.model_resolved) {
    own_total = with_logged_total(*chosen, run);
  }
  if (own_total) {
    r.implied.gpu = {own_total->name, r.implied.gpu.note + "; " + own_total->note,
                     r.implied.gpu.at};
    r.implied.unlisted_gpu = std::move(own_total->unlisted);
    r.implied.gpu_template = own_total->template_name;
  }
  Diagnostics diags;
  std::optional<Scenario> scenario;
  const std::string yaml_file = name + ".yaml";
  const ImpliedYaml yaml = implied_yaml(r.implied);
  // An unlisted GPU joins the catalog this replay reads (it is the implied scenario's only).
  const bool unlisted = user == nullptr && r.implied.unlisted_gpu.has_value();
  const GpuCatalog gpus = unlisted ? ctx.gpus.with(*r.implied.unlisted_gpu) : GpuCatalog{};
  const GpuCatalog& catalog = unlisted ? gpus : ctx.gpus;
  const auto why = [&] { return join_diagnostics(diags, yaml_file, &yaml, log_file); };
  if (user != nullptr) {
    scenario = *user;
    r.scenario_file = user->file;
  } else if (!r.implied.complete()) {
    r.not_replayed =
        std::string("the scenario the log implies is incomplete: ") +
        (r.implied.gpu.value.empty() ? "GPU unknown (" + r.implied.gpu.note + ")" : "") +
        (r.implied.gpu.value.empty() && !r.implied.model_resolved ? "; " : "") +
        (r.implied.model_resolved ? "" : "model unknown (" + r.implied.model.note + ")") +
        ". Write it with --write-scenario, fill the gap and re-run with --scenario";
    logged_only(r);
    log_outcome(r);
    partial_replay(r, engine, ctx);
    return r;
  } else {
    scenario = parse_scenario(yaml_file, yaml.text, catalog, diags);
    if (!scenario || !diags.empty()) {
      r.not_replayed = "the implied scenario is invalid: " + why();
      logged_only(r);
      log_outcome(r);
      return r;
    }
    // The pins are applied below, as on a user's scenario, so both report them alike.
    const SourceLoc loc = scenario->observed.loc;
    scenario->observed = {};
    scenario->observed.loc = loc;
  }
  r.pinned = apply_pins(*scenario, r.pins);
  if (own_total) r.pinned.push_back("cuda_total");
  // Values the user's scenario pins itself drive the replay as well.
  const ScenarioObserved& o = scenario->observed;
  const std::pair<const char*, bool> own[] = {
      {"free_before_weights", o.free_before_weights.has_value()},
      {"free_after_weights", o.free_after_weights.has_value()},
      {"model_loading", o.model_loading.has_value()},
      {"activation_peak", o.activation_peak.has_value()},
      {"non_torch_memory", o.non_torch_memory.has_value()},
      {"cuda_graph_estimate", o.cuda_graph_estimate.has_value()},
      {"kv_cache_memory", o.kv_cache_memory.has_value()}};
  for (const auto& [key, set] : own) {
    if (set && std::find(r.pinned.begin(), r.pinned.end(), key) == r.pinned.end()) {
      r.pinned.push_back(key);
    }
  }
  // An unlisted GPU takes the constants of the catalog GPU it is modelled on.
  Scenario for_constants = *scenario;
  if (unlisted) for_constants.hardware.gpu = r.implied.gpu_template;
  std::optional<SimulationConstants> constants = ctx.constants(for_constants, diags);
  if (!constants) {
    r.not_replayed = "no simulation constants: " + why();
    logged_only(r);
    log_outcome(r);
    partial_replay(r, engine, ctx);
    return r;
  }
  // Shared by the replay and the fit advice's variants of it.
  SimulationCache cache;
  const SimulationInputs inputs{catalog, ctx.models, *constants, &cache};
  std::optional<Ledger> ledger = simulate_scenario(*scenario, inputs, diags);
  if (!ledger || !diags.empty() || ledger->gpus.empty()) {
    r.not_replayed = "the replay was refused: " + why();
    logged_only(r);
    log_outcome(r);
    partial_replay(r, engine, ctx);
    return r;
  }
  r.ledger = std::move(ledger);
  compare(r, engine, ctx.tolerances);
  if (!r.from_scratch && engine == LogEngine::kVllm && scenario->hardware.preoccupied.empty()) {
    OtherProcesses others = held_by_other_processes(r, scenario->hardware.gpus_per_node);
    if (!others.held.empty()) {
      // Replayed again with that memory held; the figure keeps what gpumem alone predicted.
      std::vector<FigureCheck> alone = std::move(r.figures);
      scenario->hardware.preoccupied = std::move(others.held);
      Diagnostics again;
      std::optional<Ledger> with_others = simulate_scenario(*scenario, inputs, again);
      if (with_others && again.empty() && !with_others->gpus.empty()) {
        r.ledger = std::move(with_others);
        r.pinned.push_back("free_at_startup");
        r.pins.insert(r.pins.end(), others.pins.begin(), others.pins.end());
        r.figures.clear();
        compare(r, engine, ctx.tolerances);
        for (size_t i = 0; i < r.figures.size() && i < alone.size(); ++i) {
          if (r.figures[i].quantity == Quantity::kFreeAtStartup) {
            r.figures[i].predicted = alone[i].predicted;
          }
        }
      } else {
        r.figures = std::move(alone);
      }
    }
  }
  if (advise) diagnose(r, *scenario, inputs);
  return r;
}

}  // namespace

Explanation explain_log(const StartupLog& log, const std::string& log_file, const Scenario* user,
                        const ExplainOverrides& overrides, const ExplainContext& ctx) {
  Explanation e;
  e.log_file = log_file;
  e.engine = log.engine;
  std::string stem = log_file.substr(log_file.rfind('/') + 1);
  stem = stem.substr(0, stem.rfind('.'));
  for (size_t i = 0; i < log.runs.size(); ++i) {
    const std::string name = log.runs.size() == 1 ? stem : stem + "-" + std::to_string(i + 1);
    e.runs.push_back(explain_run(log.runs[i], log.engine, log_file, name, user, overrides, ctx));
  }
  return e;
}

ExitCode explanation_exit_code(const Explanation& e) {
  ExitCode code = kExitOk;
  for (const RunExplanation& r : e.runs) {
    if (!r.replayed() && !r.partial) return kExitBadInput;
    if (r.replayed() ? !r.ledger->fits() : !r.partial->fits) code = kExitDoesNotFit;
  }
  return code;
}

}  // namespace gpumem
