// SGLang's memory arithmetic on a start-up's logged figures (partial_replay.h): the KV pool
// from F, A and --mem-fraction-static (SGLang's default for the GPU where the log states
// none).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/diagnostics.h"
#include "core/python_format.h"
#include "engine/sglang/flags.h"
#include "engine/sglang/kv_sizing.h"
#include "engine/sglang/server_defaults.h"
#include "engine/sglang/version.h"
#include "explain/partial_arithmetic.h"
#include "sim/device_constants.h"
#include "sim/sim_device.h"

namespace gpumem::partial {
namespace {

// sglang v0.5.9 server_args.py _handle_gpu_memory_settings, and the earlier rules by release
// (engine/sglang/server_defaults.h): the --mem-fraction-static SGLang chooses when it is not
// given, from nvidia-smi's memory.total of the GPU, the logged flags and the release. Only
// for a text model ("type=...ForCausalLM"): gpumem does not model the lower fraction of
// vision-language models. `why` says how it was chosen, or why it is not known.
std::optional<double> default_mem_fraction(const RunExplanation& r, const ExplainContext& ctx,
                                           std::string& why) {
  const LogRun& run = r.run;
  const GpuSpec* g =
      r.implied.unlisted_gpu ? &*r.implied.unlisted_gpu : ctx.gpus.find(r.implied.gpu.value);
  const std::optional<sglang::Version> v = sglang::parse_version(r.implied.version.value);
  if (g == nullptr || !v) {
    why = "its default follows from the GPU's memory.total: name the GPU with --gpu";
    return std::nullopt;
  }
  if (!run.architecture.ends_with("ForCausalLM")) {
    why =
        "its default follows from the model (lower for vision-language models), which the "
        "log does not name";
    return std::nullopt;
  }
  ScenarioEngine engine;
  engine.name = "sglang";
  for (const LoggedFlag& f : r.implied.args) {
    engine.args.push_back(EngineArg{f.flag, f.values, f.is_list, {}, {}});
  }
  Diagnostics diags;
  const sglang::ServerFlags flags = sglang::read_server_flags(engine, diags);
  const double mib = static_cast<double>(g->memory_total.value()) / (1 << 20);
  if (!diags.empty()) {
    why = "the logged flags do not give its default";
    return std::nullopt;
  }
  // MLA models reserve otherwise from v0.5.10: the log's MLA "KV size" says one, K and V
  // sizes the other.
  const sglang::ResolvedArgs mla =
      sglang::resolve_server_args(flags, *v, mib, true, run.architecture);
  const sglang::ResolvedArgs mha =
      sglang::resolve_server_args(flags, *v, mib, false, run.architecture);
  const bool logs_mla = run.first(Quantity::kKvSize) != nullptr;
  const bool logs_mha = run.first(Quantity::kKSize) != nullptr;
  if (!logs_mla && !logs_mha && mla.mem_fraction_static != mha.mem_fraction_static) {
    why = "its default depends on whether the model uses MLA, which the log does not show";
    return std::nullopt;
  }
  const sglang::ResolvedArgs& a = logs_mla ? mla : mha;
  why = "SGLang " + v->to_string() + "'s default for " + g->name + " (memory.total " +
        count_text(mib) + " MiB" +
        (a.reserved_mib > 0 ? ", reserving " + count_text(a.reserved_mib) + " MiB" : "") + ")";
  return a.mem_fraction_static;
}

}  // namespace

// sglang model_runner_kv_cache_mixin.py profile_max_num_token, from the figures the log
// prints: F and A are MINs over the ranks (get_available_gpu_memory(distributed=True)).
bool sglang_partial(RunExplanation& r, const ExplainContext& ctx) {
  const LogRun& run = r.run;
  release_caveat(r);
  Rows rows(r);
  total_check(r, rows, ctx);
  // What is checked without F and A (the GPU's total) leaves the fit to the log's ending.
  const auto checked_without_kv = [&] {
    if (rows.predicted() == 0) return false;
    r.partial = PartialReplay{label(r), !memory_failure(run)};
    return true;
  };
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
  std::optional<double> mfs = flag_number(run, "--mem-fraction-static");
  if (!f_min || !a_min) return checked_without_kv();
  std::string mfs_note;
  if (!mfs) {
    std::string why;
    mfs = default_mem_fraction(r, ctx, why);
    if (!mfs) {
      r.diagnosis.push_back(
          "the log's arithmetic: F and A are printed, but not --mem-fraction-static (" + why + ")");
      return checked_without_kv();
    }
    const bool command_logged =
        std::any_of(run.flags.begin(), run.flags.end(),
                    [](const LoggedFlag& f) { return f.source == "launch command"; });
    mfs_note = "; --mem-fraction-static " + python_float_repr(*mfs) + " is " + why +
               (command_logged ? ""
                               : " (the log shows no launch command: a --mem-fraction-static "
                                 "given there replaces it)");
  }
  for (const std::optional<Logged>& i : inputs) rows.pin(i);
  const double rest =
      sglang::profile_rest(engine_gib(f_min->value), engine_gib(a_min->value), *mfs).value();
  const double rest_half = f_min->half * (1 - *mfs) + a_min->half;
  r.diagnosis.push_back("the log's arithmetic: rest = A - F x (1 - " + python_float_repr(*mfs) +
                        ") = " + python_fixed(a_min->value, 2) + " - " +
                        python_fixed(f_min->value, 2) + " x " + python_fixed(1 - *mfs, 2) + " = " +
                        gib(rest) + " for the KV pool" + f_text + mfs_note);
  // A hybrid linear-attention model's state slots leave rest first (handle_max_mamba_cache):
  // the logged conv and SSM sizes cover K + 1 slots, of which K were budgeted.
  double kv_rest = rest;
  double kv_rest_half = rest_half;
  const Observation* slots = run.first(Quantity::kMambaSlots);
  const Observation* conv = run.first(Quantity::kConvStateSize);
  const Observation* ssm = run.first(Quantity::kSsmStateSize);
  if (slots != nullptr && conv != nullptr && ssm != nullptr) {
    const double budgeted = slots->value / (slots->value + 1);
    const double state = (conv->value + ssm->value) * budgeted;
    kv_rest -= state;
    kv_rest_half += (half_unit(conv->decimals) + half_unit(ssm->decimals)) * budgeted;
    r.diagnosis.push_back("the log's state cache: " + count_text(slots->value) +
                          " slots of conv + SSM state take " + gib(state) +
                          " of rest (the printed sizes count one padding slot more), leaving " +
                          gib(kv_rest) + " for the KV pool");
  }
  // The pool takes all of rest unless a cap or a draft model shares it.
  std::string shared;
  if (run.flag("--max-total-tokens") != nullptr) shared = "--max-total-tokens caps it";
  if (run.flag("--speculative-algorithm") != nullptr) shared = "a draft model shares it";
  if (rest > 0 && !shared.empty()) {
    r.diagnosis.push_back("the KV pool sizes are not predicted: " + shared);
  } else if (rest > 0) {
    for (const Observation& o : run.observations) {
      if (o.quantity == Quantity::kKvSize) {
        rows.predict(o, kv_rest, half_unit(o.decimals) + kShownHalf + kv_rest_half);
      } else if (o.quantity == Quantity::kKSize || o.quantity == Quantity::kVSize) {
        // K and V printed alike have equal widths: each takes half of rest.
        const Quantity other = o.quantity == Quantity::kKSize ? Quantity::kVSize : Quantity::kKSize;
        const auto twin = std::find_if(
            run.observations.begin(), run.observations.end(),
            [&](const Observation& x) { return x.quantity == other && x.line == o.line; });
        if (twin == run.observations.end() || twin->value != o.value) continue;
        rows.predict(o, kv_rest / 2, half_unit(o.decimals) + kShownHalf + kv_rest_half / 2);
      }
    }
    if (rows.predicted() > 0 && slots == nullptr) {
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
  // A fraction the log does not state decides nothing alone: only the figures it predicts
  // check it.
  if (!mfs_note.empty() && rows.predicted() == 0) return false;
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

}  // namespace gpumem::partial
